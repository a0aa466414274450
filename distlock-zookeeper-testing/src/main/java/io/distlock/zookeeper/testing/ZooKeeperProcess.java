package io.distlock.zookeeper.testing;

import io.distlock.servers.FreePorts;
import io.distlock.servers.GuardedProcess;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A standalone ZooKeeper server in a JVM of its own (ZooKeeper's {@code ZooKeeperServerMain}, run by this JVM's java
 * from this JVM's class path), on a free loopback port, configured as {@link ZooKeeperServer} is. For benchmarks that
 * measure the client's heap: an in-process server's nodes (a container parent per lock name until the server sweeps
 * it) would count as the client's. The process cannot outlive this JVM ({@link GuardedProcess}).
 */
public final class ZooKeeperProcess implements AutoCloseable {
    private static final long START_MILLIS = TimeUnit.SECONDS.toMillis(60);

    private final GuardedProcess process;
    private final Path dir;
    private final int port;

    private ZooKeeperProcess(GuardedProcess process, Path dir, int port) {
        this.process = process;
        this.dir = dir;
        this.port = port;
    }

    /**
     * Starts a server with an empty data directory and waits until it answers.
     *
     * @throws IllegalStateException if it does not serve within a minute (its log is in the message)
     */
    public static ZooKeeperProcess launch() {
        Path dir;
        try {
            dir = Files.createTempDirectory("distlock-zookeeper-process-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for ZooKeeper", e);
        }
        int port = FreePorts.next();
        Path config = dir.resolve("zoo.cfg");
        Properties properties = ZooKeeperConfig.properties(dir.resolve("data"), port, Map.of());
        try (OutputStream out = Files.newOutputStream(config)) {
            properties.store(out, "distlock benchmark server");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + config, e);
        }
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-Xmx2g");
        command.add("-Dzookeeper.admin.enableServer=false");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("org.apache.zookeeper.server.ZooKeeperServerMain");
        command.add(config.toString());
        Path log = dir.resolve("server.log");
        GuardedProcess process = GuardedProcess.start(command, log);
        ZooKeeperProcess server = new ZooKeeperProcess(process, dir, port);
        long deadline = System.currentTimeMillis() + START_MILLIS;
        while (ZooKeeperStatus.mode(port).isEmpty()) {
            if (!process.isAlive() || System.currentTimeMillis() > deadline) {
                server.close();
                throw new IllegalStateException("the ZooKeeper server process on port " + port + " did not start: " + GuardedProcess.readLog(log));
            }
            try {
                Thread.sleep(100); // polling the port until the child JVM serves: nothing to wait on across processes
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                server.close();
                throw new IllegalStateException("interrupted while the ZooKeeper server process started", e);
            }
        }
        return server;
    }

    /** Returns {@code 127.0.0.1:<port>}. */
    public String connectString() {
        return "127.0.0.1:" + port;
    }

    /** Returns the server process's pid. */
    public long pid() {
        return process.pid();
    }

    /** Kills the process and deletes its data. */
    @Override
    public void close() {
        process.kill();
        ZooKeeperConfig.deleteQuietly(dir);
    }
}
