package io.distlock.cli.options;

import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** Mixin: {@code --seed N}, which makes the injected faults and timings of a run repeatable. */
public final class SeedOption {
    @Option(names = "--seed", paramLabel = "N",
            description = "Seed of the injected faults and timings, to repeat a run. Default: random (printed).")
    @Nullable Long seed;

    /** Returns whether the user gave a seed. */
    public boolean given() {
        return seed != null;
    }

    /** Returns the user's seed, or a new random one (to print, so that the run can be repeated). */
    public long resolve() {
        return seed != null ? seed : ThreadLocalRandom.current().nextLong(1, 1_000_000);
    }
}
