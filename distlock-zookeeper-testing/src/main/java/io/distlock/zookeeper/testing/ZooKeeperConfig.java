package io.distlock.zookeeper.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.zookeeper.server.quorum.QuorumPeerConfig;

/** The configuration the in-process ZooKeeper servers share, as a zoo.cfg would state it. */
final class ZooKeeperConfig {
    private ZooKeeperConfig() {}

    /**
     * Returns a parsed configuration: loopback client port, short tick, admin server off, no limit on
     * connections per address (the tests open many), plus {@code extra} (ensemble members, limits).
     */
    static QuorumPeerConfig of(Path dataDir, int clientPort, Map<String, String> extra) {
        Properties properties = properties(dataDir, clientPort, extra);
        QuorumPeerConfig config = new QuorumPeerConfig();
        try {
            config.parseProperties(properties);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read ZooKeeper's data directory " + dataDir, e);
        } catch (QuorumPeerConfig.ConfigException e) {
            throw new IllegalStateException("invalid ZooKeeper configuration " + properties, e);
        }
        return config;
    }

    /** Returns the lines of {@link #of}'s configuration, as a zoo.cfg holds them. */
    static Properties properties(Path dataDir, int clientPort, Map<String, String> extra) {
        Properties properties = new Properties();
        properties.setProperty("dataDir", dataDir.toString());
        properties.setProperty("clientPort", Integer.toString(clientPort));
        properties.setProperty("clientPortAddress", "127.0.0.1");
        properties.setProperty("tickTime", Integer.toString(ZooKeeperServer.TICK_MILLIS));
        properties.setProperty("maxClientCnxns", "0");
        // ZooKeeper turns keys it does not know into system properties: this one keeps the Jetty admin
        // server (not on the class path) from being tried at all, for every server in this JVM.
        properties.setProperty("admin.enableServer", "false");
        properties.putAll(extra);
        return properties;
    }

    /** Deletes a data directory and everything in it (best effort). */
    static void deleteQuietly(Path dir) {
        try (Stream<Path> files = java.nio.file.Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // a temp directory: left for the OS
        }
    }
}
