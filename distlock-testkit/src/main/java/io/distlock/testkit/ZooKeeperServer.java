package io.distlock.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * An in-process ZooKeeper server on a free port (Curator's TestingServer) with a short tick, so that
 * tests can use session timeouts of a few seconds. Stop and start keep the data, like a real restart;
 * pause is not possible in-process.
 */
public final class ZooKeeperServer implements BackendControl, AutoCloseable {
    /** Tick of the test servers: sessions may last from 2 to 20 ticks. */
    public static final int TICK_MILLIS = 250;

    private final TestingServer server;
    private boolean running;

    private ZooKeeperServer(TestingServer server) {
        this.server = server;
        this.running = true;
    }

    /** Starts a server on a free port. */
    public static ZooKeeperServer launch() {
        try {
            InstanceSpec spec = new InstanceSpec(null, FreePorts.next(), -1, -1, true, -1, TICK_MILLIS, -1,
                    Map.of("admin.enableServer", "false"));
            return new ZooKeeperServer(new TestingServer(spec, true));
        } catch (Exception e) {
            throw new IllegalStateException("cannot start an in-process ZooKeeper server", e);
        }
    }

    /** Returns {@code 127.0.0.1:<port>}. */
    public String connectString() {
        return "127.0.0.1:" + server.getPort();
    }

    @Override
    public void stop() {
        try {
            server.stop();
            running = false;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void kill() {
        stop();
    }

    @Override
    public void start() {
        if (running) {
            throw new IllegalStateException("ZooKeeper server on " + connectString() + " is already running");
        }
        restart();
    }

    @Override
    public void restart() {
        try {
            server.restart();
            running = true;
        } catch (Exception e) {
            throw new IllegalStateException("cannot restart the ZooKeeper server on " + connectString(), e);
        }
    }

    @Override
    public void pause() {
        throw new UnsupportedOperationException("an in-process ZooKeeper server cannot be frozen");
    }

    @Override
    public void resume() {
        throw new UnsupportedOperationException("an in-process ZooKeeper server cannot be frozen");
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // best effort at the end of a test class
        }
    }
}
