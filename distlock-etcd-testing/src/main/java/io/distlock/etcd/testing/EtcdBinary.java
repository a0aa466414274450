package io.distlock.etcd.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Finds the {@code etcd} server binary. etcd is the one backend whose server is not on Maven Central:
 * the suite runs Debian's {@code etcd-server} package (3.4 on Debian 12), or the binary named by the
 * {@code DISTLOCK_ETCD} environment variable.
 */
public final class EtcdBinary {
    /** How to get etcd, for messages. */
    public static final String HOW_TO_INSTALL = "install Debian's etcd-server (apt-get install -y etcd-server; .ci/run does this "
            + "when it runs as root) or set DISTLOCK_ETCD to an etcd 3.4+ binary";
    /** The system property that makes a missing etcd fail the etcd tests instead of skipping them: {@code -Ddistlock.require.etcd=true}. */
    public static final String REQUIRE_PROPERTY = "distlock.require.etcd";
    /** The environment variable with the same effect, {@code DISTLOCK_REQUIRE_ETCD=true}; {@code .ci/run} sets it. */
    public static final String REQUIRE_VARIABLE = "DISTLOCK_REQUIRE_ETCD";
    private static volatile @Nullable Path found;
    private static volatile boolean searched;

    private EtcdBinary() {}

    /** Returns whether an etcd binary was found. */
    public static boolean available() {
        return locate() != null;
    }

    /**
     * Returns whether the etcd tests must run here ({@link #REQUIRE_PROPERTY} or {@link #REQUIRE_VARIABLE} is
     * {@code true}, as in CI): a missing binary then fails them rather than skipping them.
     */
    public static boolean required() {
        String property = System.getProperty(REQUIRE_PROPERTY);
        return Boolean.parseBoolean(property != null ? property : System.getenv(REQUIRE_VARIABLE));
    }

    /**
     * Returns whether the etcd tests can run: true if a binary was found, false if not (the tests skip,
     * saying why).
     *
     * @throws IllegalStateException if no binary was found but the tests are {@link #required()}, so that a
     *     build that must run them fails instead of passing with none run
     */
    public static boolean availableForTests() {
        if (available()) {
            return true;
        }
        if (required()) {
            throw new IllegalStateException("the etcd tests must run here (" + REQUIRE_PROPERTY + " or " + REQUIRE_VARIABLE
                    + " is true) but no etcd binary was found on PATH or in DISTLOCK_ETCD: " + HOW_TO_INSTALL);
        }
        return false;
    }

    /**
     * Returns the etcd binary.
     *
     * @throws IllegalStateException saying how to install it, if there is none
     */
    public static Path path() {
        Path binary = locate();
        if (binary == null) {
            throw new IllegalStateException("no etcd binary found on PATH or in DISTLOCK_ETCD: " + HOW_TO_INSTALL);
        }
        return binary;
    }

    /** Returns what {@code etcd --version} prints first (e.g. {@code etcd Version: 3.4.23}), or why not. */
    public static String version() {
        try {
            Process process = new ProcessBuilder(path().toString(), "--version").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(10, TimeUnit.SECONDS);
            return output.lines().findFirst().orElse("etcd (no version printed)");
        } catch (IOException | IllegalStateException e) {
            return "etcd unavailable: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "etcd (interrupted)";
        }
    }

    private static @Nullable Path locate() {
        if (!searched) {
            found = search();
            searched = true;
        }
        return found;
    }

    private static @Nullable Path search() {
        String configured = System.getenv("DISTLOCK_ETCD");
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            return Files.isExecutable(path) ? path : null;
        }
        String pathVariable = System.getenv().getOrDefault("PATH", "");
        for (String dir : (pathVariable + ":/usr/bin:/usr/local/bin").split(":")) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, "etcd");
                if (Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return null;
    }
}
