package io.distlock.cli.options;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/** Reads durations the way people write them on a command line: {@code 500ms}, {@code 30s}, {@code 2m}, {@code 1h}. */
public final class DurationConverter implements ITypeConverter<Duration> {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

    /**
     * Returns the duration.
     *
     * @throws OptionValueException for anything else, a bare number included (its unit would be a guess)
     */
    @Override
    public Duration convert(String value) {
        Matcher m = DURATION.matcher(value == null ? "" : value.trim());
        if (!m.matches()) {
            throw new OptionValueException("must look like 500ms, 30s or 2m, was '" + value + "'");
        }
        long amount = Long.parseLong(m.group(1));
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            case "m" -> Duration.ofMinutes(amount);
            default -> Duration.ofHours(amount);
        };
    }

    /** Returns {@code duration} the way {@link #convert} reads it, in the largest unit that is exact: 60s, 2m, 500ms. */
    public static String format(Duration duration) {
        long millis = duration.toMillis();
        if (millis % 3_600_000 == 0 && millis > 0) {
            return millis / 3_600_000 + "h";
        }
        if (millis % 60_000 == 0 && millis > 0) {
            return millis / 60_000 + "m";
        }
        if (millis % 1000 == 0) {
            return millis / 1000 + "s";
        }
        return millis + "ms";
    }
}
