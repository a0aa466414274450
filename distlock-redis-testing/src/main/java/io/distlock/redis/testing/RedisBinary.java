package io.distlock.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Locates a {@code redis-server} binary: {@code $DISTLOCK_REDIS_SERVER}, else the one on PATH, else
 * the statically linked build carried by the {@code org.signal:embedded-redis} artifact, extracted
 * once to the temp directory.
 */
public final class RedisBinary {
    private static final String EMBEDDED_VERSION = "7.0.15";
    private static volatile @Nullable Path cached;

    private RedisBinary() {}

    /** Returns the path of a runnable redis-server. */
    public static Path locate() {
        Path found = cached;
        if (found == null) {
            found = find();
            cached = found;
        }
        return found;
    }

    /** Returns the embedded (statically linked) binary, ignoring PATH. */
    public static Path embedded() {
        String resource = "redis-server-" + EMBEDDED_VERSION + "-" + platform();
        Path target = Path.of(System.getProperty("java.io.tmpdir"), "distlock-redis-" + EMBEDDED_VERSION, resource);
        if (Files.isExecutable(target)) {
            return target;
        }
        try (InputStream in = RedisBinary.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("no embedded redis-server for " + platform()
                        + "; install redis-server or set DISTLOCK_REDIS_SERVER");
            }
            Files.createDirectories(target.getParent());
            Path temp = Files.createTempFile(target.getParent(), resource, ".tmp");
            Files.copy(in, temp, StandardCopyOption.REPLACE_EXISTING);
            Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot extract embedded redis-server to " + target, e);
        }
    }

    private static Path find() {
        String configured = System.getenv("DISTLOCK_REDIS_SERVER");
        if (configured != null && !configured.isBlank()) {
            Path path = Path.of(configured);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException("DISTLOCK_REDIS_SERVER=" + configured + " is not an executable file");
            }
            return path;
        }
        String pathVariable = System.getenv("PATH");
        if (pathVariable != null) {
            for (String dir : pathVariable.split(File.pathSeparator)) {
                Path candidate = Path.of(dir, "redis-server");
                if (!dir.isEmpty() && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        return embedded();
    }

    private static String platform() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        String osPart = os.contains("mac") ? "darwin" : "linux";
        String archPart = switch (arch) {
            case "amd64", "x86_64" -> "amd64";
            case "aarch64", "arm64" -> "arm64";
            case "x86", "i386", "i686" -> "386";
            default -> arch;
        };
        return osPart + "-" + archPart;
    }
}
