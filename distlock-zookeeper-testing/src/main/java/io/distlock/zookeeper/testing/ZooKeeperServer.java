package io.distlock.zookeeper.testing;

import io.distlock.servers.BackendControl;
import io.distlock.servers.FreePorts;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.zookeeper.server.ServerConfig;
import org.apache.zookeeper.server.ZooKeeperServerMain;
import org.jspecify.annotations.Nullable;

/**
 * A real standalone ZooKeeper server, run in this JVM on a free loopback port, with a short tick so
 * that tests can use sessions of 0.5 to 5 seconds. Stop and start keep the data, like a real restart;
 * pause is not possible in-process.
 */
public final class ZooKeeperServer implements BackendControl, AutoCloseable {
    /*
     * Each start runs ZooKeeper's own standalone main (ZooKeeperServerMain, what zkServer.sh runs: the
     * server, its connection factory and the container manager that deletes empty container nodes) on
     * a thread of its own, from a configuration with this server's port and data directory. stop()
     * shuts it down the way ZooKeeper does on SIGTERM and waits for that thread, so the transaction
     * log is closed. start() runs a new main on the same port and directory, which loads the snapshot
     * and the log: nodes and sessions survive; clients reconnect and keep their sessions if they come
     * back within the session timeout. All state changes happen under `lock`.
     */

    /** Tick of the test servers: sessions may last from 2 to 20 ticks. */
    public static final int TICK_MILLIS = 250;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private final ReentrantLock lock = new ReentrantLock();
    private final Path dataDir;
    private final int port;
    private final Map<String, String> settings;
    private @Nullable Run run;

    private ZooKeeperServer(Path dataDir, int port, Map<String, String> settings) {
        this.dataDir = dataDir;
        this.port = port;
        this.settings = Map.copyOf(settings);
    }

    /** Starts a server on a free port with an empty data directory. */
    public static ZooKeeperServer launch() {
        return launch(Map.of());
    }

    /**
     * Starts a server on a free port with an empty data directory and {@code settings}, zoo.cfg lines on top of the
     * test defaults (such as {@code maxSessionTimeout=20000}); they stay for every restart.
     *
     * @throws IllegalStateException if the settings are not a valid configuration, or the server does not start
     */
    public static ZooKeeperServer launch(Map<String, String> settings) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            Path dir;
            try {
                dir = Files.createTempDirectory("distlock-zookeeper-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a data directory for ZooKeeper", e);
            }
            ZooKeeperServer server = new ZooKeeperServer(dir, FreePorts.next(), settings);
            try {
                server.start();
                return server;
            } catch (IllegalStateException e) {
                last = e; // most likely the port was taken between probe and bind: try another
                ZooKeeperConfig.deleteQuietly(dir);
            }
        }
        throw last;
    }

    /** Returns the client port. */
    public int port() {
        return port;
    }

    /** Returns {@code 127.0.0.1:<port>}. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /**
     * Returns how many packets the server has received from its clients since it last started, from its own
     * statistics ({@code srvr}'s {@code Received}): every request, and every client's pings (one per third of
     * its session timeout while idle). Lets a test count the calls clients make.
     *
     * @throws IllegalStateException if the server does not answer
     */
    public long packetsReceived() {
        return ZooKeeperStatus.packetsReceived(port)
                .orElseThrow(() -> new IllegalStateException("ZooKeeper on " + connectString() + " did not answer srvr"));
    }

    /** Returns whether the server runs (it was started and not stopped since). */
    public boolean isRunning() {
        lock.lock();
        try {
            return run != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Starts the server on its port with the data it had; waits until it serves.
     *
     * @throws IllegalStateException if it runs already, or does not start within 30 s
     */
    @Override
    public void start() {
        lock.lock();
        try {
            if (run != null) {
                throw new IllegalStateException("ZooKeeper server on " + connectString() + " is already running");
            }
            ServerConfig config = new ServerConfig();
            config.readFrom(ZooKeeperConfig.of(dataDir, port, settings));
            Run started = new Run(config, port);
            started.awaitServing(START_TIMEOUT);
            run = started;
        } finally {
            lock.unlock();
        }
    }

    /** Shuts the server down (connections are closed, the data stays) and waits until it is gone. */
    @Override
    public void stop() {
        lock.lock();
        try {
            if (run != null) {
                run.shutDown();
                run = null;
            }
        } finally {
            lock.unlock();
        }
    }

    /** The same as {@link #stop()}: an in-process server cannot be killed with SIGKILL. */
    @Override
    public void kill() {
        stop();
    }

    /** Not possible in-process. */
    @Override
    public void pause() {
        throw new UnsupportedOperationException("an in-process ZooKeeper server cannot be frozen");
    }

    /** Not possible in-process. */
    @Override
    public void resume() {
        throw new UnsupportedOperationException("an in-process ZooKeeper server cannot be frozen");
    }

    /** Stops the server and deletes its data. */
    @Override
    public void close() {
        stop();
        ZooKeeperConfig.deleteQuietly(dataDir);
    }

    @Override
    public String toString() {
        return "ZooKeeperServer[" + connectString() + (isRunning() ? "" : ", stopped") + "]";
    }

    /** One run of ZooKeeper's standalone main, on its own thread. */
    private static final class Run extends ZooKeeperServerMain {
        private final CountDownLatch startedOrFailed = new CountDownLatch(1);
        private final Thread thread;
        private volatile boolean serving;
        private volatile @Nullable Throwable failure;

        Run(ServerConfig config, int port) {
            ZooKeeperExits.requests(); // a fatal error of this server must not end the JVM
            thread = new Thread(() -> {
                try {
                    runFromConfig(config);
                } catch (Throwable e) {
                    failure = e;
                } finally {
                    startedOrFailed.countDown();
                }
            }, "zookeeper-server-" + port);
            thread.setDaemon(true);
            thread.start();
        }

        @Override
        protected void serverStarted() {
            serving = true;
            startedOrFailed.countDown();
        }

        void awaitServing(Duration timeout) {
            try {
                if (!startedOrFailed.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    shutDown();
                    throw new IllegalStateException("ZooKeeper did not start within " + timeout);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                shutDown();
                throw new IllegalStateException("interrupted while ZooKeeper started", e);
            }
            if (!serving) {
                throw new IllegalStateException("ZooKeeper did not start (port taken?)", failure);
            }
        }

        void shutDown() {
            close();
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
