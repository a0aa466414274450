package io.distlock.jdbc.testing;

import io.distlock.servers.FreePorts;
import io.distlock.servers.GuardedProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The life of a database server run as a child process (PostgreSQL, MariaDB): started with the command a
 * subclass gives and trusted once its log says it is ready; stopped with its own shutdown signal (the data
 * stays for the next start); killed, frozen and thawed with signals; killed with this JVM. Everything lives
 * in one directory per server: the data, the log ({@code <name>.log}) and whatever the subclass puts there.
 */
abstract class DatabaseProcess implements DatabaseServer {
    private static final Set<DatabaseProcess> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(DatabaseProcess::killQuietly), "database-cleanup"));
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final String name;
    private final String readyLine;
    private final String stopSignal;
    private final Duration startTimeout;
    /** The server's directory: its data, log and sockets. */
    final Path dir;
    /** The port the server listens on (loopback). */
    final int port;
    private volatile @Nullable GuardedProcess process;

    /**
     * Creates the server's own directory (readable by all, for a server run as another user; deleted by
     * {@link #close()}).
     *
     * @param name the server's name in logs, messages and its directory's name, e.g. {@code postgres}
     * @param port its port
     * @param readyLine the log line that says it accepts connections
     * @param stopSignal the signal of a clean shutdown, e.g. {@code INT}
     * @param startTimeout how long a start may take
     */
    DatabaseProcess(String name, int port, String readyLine, String stopSignal, Duration startTimeout) {
        this.name = name;
        try {
            this.dir = Files.createTempDirectory("distlock-" + name + "-");
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for " + name, e);
        }
        this.port = port;
        this.readyLine = readyLine;
        this.stopSignal = stopSignal;
        this.startTimeout = startTimeout;
    }

    /**
     * Creates a server on a free port, prepares its data directory and starts it; tries three ports, since a
     * port found free can be taken before the server binds it.
     */
    static <S extends DatabaseProcess> S launch(IntFunction<S> create, Consumer<S> prepare) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            S server = create.apply(FreePorts.next());
            try {
                prepare.accept(server);
                server.start();
                return server;
            } catch (IllegalStateException e) {
                last = e;
                server.close();
            }
        }
        throw last;
    }

    /** The command line that runs the server in the foreground. */
    abstract List<String> command();

    @Override
    public int port() {
        return port;
    }

    /** Returns whether the server process is running. */
    public boolean isRunning() {
        GuardedProcess current = process;
        return current != null && current.isAlive();
    }

    /**
     * Starts the server and waits until its log says it accepts connections.
     *
     * @throws IllegalStateException if it is already running, or does not become ready in time (with its log)
     */
    @Override
    public void start() {
        lock.lock();
        try {
            if (isRunning()) {
                throw new IllegalStateException(name + " on port " + port + " is already running");
            }
            int logBefore = GuardedProcess.logLength(logFile()); // every start appends to the log: only this start's lines count
            GuardedProcess started = GuardedProcess.start(command(), logFile());
            process = started;
            RUNNING.add(this);
            try {
                started.awaitReady(logBefore, readyLine, port, startTimeout, name);
            } catch (IllegalStateException e) {
                RUNNING.remove(this);
                throw e;
            }
        } finally {
            lock.unlock();
        }
    }

    /** Shuts the server down cleanly (its own shutdown signal): open connections are closed, the data stays. */
    @Override
    public void stop() {
        lock.lock();
        try {
            GuardedProcess current = process;
            if (current != null && current.isAlive()) {
                GuardedProcess.run("kill", "-" + stopSignal, Long.toString(current.pid()));
                current.awaitExit();
            }
            RUNNING.remove(this);
        } finally {
            lock.unlock();
        }
    }

    /** Kills the server and its children (SIGKILL). The next start recovers from the server's log. */
    @Override
    public void kill() {
        killQuietly();
    }

    /** Freezes the server and every child process (SIGSTOP). */
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

    /** The server's data directory. */
    final Path data() {
        return dir.resolve("data");
    }

    private Path logFile() {
        return dir.resolve(name + ".log");
    }

    private void signalAll(String signal) {
        GuardedProcess current = process;
        if (current != null) {
            current.signalAll(signal);
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
        return getClass().getSimpleName() + "[127.0.0.1:" + port + (current != null && current.isAlive() ? ", pid " + current.pid() : ", stopped") + "]";
    }
}
