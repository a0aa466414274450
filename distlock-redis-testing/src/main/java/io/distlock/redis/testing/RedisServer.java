package io.distlock.redis.testing;

import io.distlock.servers.BackendControl;
import io.distlock.servers.FreePorts;
import io.distlock.servers.Signal;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * A real {@code redis-server} process on a free loopback port, without persistence, for tests and the
 * demo. Supports stop, kill -9, pause/resume (SIGSTOP/SIGCONT) and restart on the same port.
 *
 * <p>No orphans: the server runs under a small shell guard that kills it when this JVM's end of the
 * guard's stdin closes, which the OS does when the JVM exits for any reason, kill -9 included.
 * A shutdown hook also stops servers on a normal exit.
 */
public final class RedisServer implements BackendControl, AutoCloseable {
    /*
     * The guard: keep our stdin as fd 3, start redis with stdin from /dev/null (and without fd 3),
     * print its pid, and let a background subshell wait for EOF on fd 3 and then SIGKILL redis. The
     * main shell waits for redis, so the Process we hold ends exactly when redis ends.
     */
    private static final String GUARD = "exec 3<&0; \"$0\" \"$@\" </dev/null 3<&- & pid=$!; echo $pid; "
            + "(read -r _ <&3; kill -9 $pid 2>/dev/null) & watcher=$!; exec 3<&-; "
            + "wait $pid; code=$?; kill $watcher 2>/dev/null; exit $code";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(20);
    private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServer::killQuietly), "redis-server-cleanup"));
    }

    private final ReentrantLock lock = new ReentrantLock();
    private final Path binary;
    private final Path dir;
    private final List<String> extraArgs;
    private List<String> leadingArgs = List.of();
    private int port;
    private volatile @Nullable Process guard;
    private volatile long pid;

    private RedisServer(Path binary, int port, List<String> extraArgs) {
        this.binary = binary;
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        try {
            this.dir = Files.createTempDirectory("distlock-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a server on a free port with the binary from {@link RedisBinary#locate()}. */
    public static RedisServer launch(String... extraArgs) {
        return launch(RedisBinary.locate(), extraArgs);
    }

    /** Starts a server on a free port with the given binary and extra {@code --option value} arguments. */
    public static RedisServer launch(Path binary, String... extraArgs) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            RedisServer server = new RedisServer(binary, FreePorts.next(), List.of(extraArgs));
            try {
                server.start();
                return server;
            } catch (IllegalStateException e) {
                last = e; // most likely the port was taken between probe and bind: try another
            }
        }
        throw last;
    }

    /**
     * Starts a Redis Sentinel on a free port that monitors {@code masterName} at 127.0.0.1:{@code masterPort}
     * with the given quorum, declaring the master down after {@code downAfter} without answers.
     */
    public static RedisServer launchSentinel(String masterName, int masterPort, int quorum, Duration downAfter) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            RedisServer server = new RedisServer(RedisBinary.locate(), FreePorts.next(), List.of());
            Path conf = server.dir.resolve("sentinel.conf");
            try {
                Files.writeString(conf, "sentinel monitor " + masterName + " 127.0.0.1 " + masterPort + " " + quorum + "\n"
                        + "sentinel down-after-milliseconds " + masterName + " " + downAfter.toMillis() + "\n"
                        + "sentinel failover-timeout " + masterName + " 10000\n");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            server.leadingArgs = List.of(conf.toString(), "--sentinel");
            try {
                server.start();
                return server;
            } catch (IllegalStateException e) {
                last = e;
            }
        }
        throw last;
    }

    /** Returns the TCP port. */
    public int port() {
        return port;
    }

    /** Returns {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Returns the pid of the redis-server process, if it runs. */
    public Optional<Long> pid() {
        return isRunning() ? Optional.of(pid) : Optional.empty();
    }

    /** Returns whether the server process is alive (paused counts as alive). */
    public boolean isRunning() {
        Process current = guard;
        return current != null && current.isAlive();
    }

    @Override
    public void start() {
        lock.lock();
        try {
            if (isRunning()) {
                throw new IllegalStateException("redis-server on port " + port + " is already running");
            }
            List<String> command = new ArrayList<>(List.of("sh", "-c", GUARD, binary.toString()));
            command.addAll(leadingArgs);
            command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", dir.toString(), "--logfile", dir.resolve("redis.log").toString(), "--daemonize", "no"));
            command.addAll(extraArgs);
            try {
                Process started = new ProcessBuilder(command).redirectErrorStream(true).start();
                guard = started;
                BufferedReader out = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8));
                String pidLine = out.readLine();
                if (pidLine == null) {
                    throw new IllegalStateException("redis-server guard exited at once: " + binary);
                }
                pid = Long.parseLong(pidLine.trim());
            } catch (IOException e) {
                throw new IllegalStateException("cannot start " + binary, e);
            }
            RUNNING.add(this);
            awaitReady();
        } finally {
            lock.unlock();
        }
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!isRunning()) {
                RUNNING.remove(this);
                throw new IllegalStateException("redis-server exited on start (port " + port + " taken?): " + log());
            }
            if (ping()) {
                return;
            }
            sleepQuietly(20);
        }
        killQuietly();
        throw new IllegalStateException("redis-server on port " + port + " not ready within " + START_TIMEOUT + ": " + log());
    }

    /** Returns whether the server answers PING now (with PONG, or NOAUTH when it has a password). */
    public boolean ping() {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
            socket.setSoTimeout(500);
            OutputStream out = socket.getOutputStream();
            out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            byte[] reply = socket.getInputStream().readNBytes(7);
            String answer = new String(reply, StandardCharsets.US_ASCII);
            return answer.startsWith("+PONG") || answer.startsWith("-NOAUTH");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void stop() {
        lock.lock();
        try {
            signal(Signal.TERM);
            awaitExit();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void kill() {
        lock.lock();
        try {
            signal(Signal.KILL);
            awaitExit();
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void pause() {
        lock.lock();
        try {
            signal(Signal.STOP);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void resume() {
        lock.lock();
        try {
            signal(Signal.CONT);
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() {
        killQuietly();
        try (var files = Files.walk(dir)) {
            files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // best effort: the temp directory holds only a log
        }
    }

    /** Returns the server's log so far, for failure messages. */
    public String log() {
        try {
            Path logFile = dir.resolve("redis.log");
            return Files.exists(logFile) ? Files.readString(logFile) : "(no log)";
        } catch (IOException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    private void killQuietly() {
        lock.lock();
        try {
            if (isRunning()) {
                signal(Signal.CONT);
                signal(Signal.KILL);
                awaitExit();
            }
        } finally {
            lock.unlock();
        }
    }

    private void signal(Signal signal) {
        if (isRunning()) {
            signal.sendTo(pid);
        }
    }

    private void awaitExit() {
        Process current = guard;
        if (current == null) {
            return;
        }
        try {
            if (!current.waitFor(10, TimeUnit.SECONDS)) {
                signal(Signal.KILL);
                current.waitFor(10, TimeUnit.SECONDS);
            }
            current.getOutputStream().close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException ignored) {
            // the guard is gone already
        }
        RUNNING.remove(this);
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
        return "RedisServer[" + uri() + (isRunning() ? ", pid " + pid : ", stopped") + "]";
    }
}
