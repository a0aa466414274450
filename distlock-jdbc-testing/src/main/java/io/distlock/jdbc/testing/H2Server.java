package io.distlock.jdbc.testing;

import io.distlock.servers.FreePorts;
import io.distlock.servers.TcpProxy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.stream.Stream;
import org.h2.tools.Server;
import org.jspecify.annotations.Nullable;

/**
 * An H2 TCP server in this JVM on a file database that survives restarts, reached through a
 * {@link TcpProxy} so that {@link #pause()} freezes it as clients see it (a server in this JVM cannot
 * be SIGSTOPped). A kill is a stop, for the same reason. Needs {@code com.h2database:h2} on the classpath.
 */
public final class H2Server implements DatabaseServer {
    private final Path dir;
    private final int port = FreePorts.next();
    private final TcpProxy proxy;
    private @Nullable Server server;

    private H2Server(Path dir) {
        this.dir = dir;
        start();
        this.proxy = TcpProxy.to(port);
    }

    /** Starts a server on a fresh database in a temporary directory (deleted by {@link #close()}). */
    public static H2Server launch() {
        try {
            return new H2Server(Files.createTempDirectory("distlock-h2-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for H2", e);
        }
    }

    /** Returns the port clients connect to (the proxy's). */
    public int port() {
        return proxy.port();
    }

    /** Returns a JDBC URL for database {@code distlock} as user {@code sa} (no password), through the proxy. */
    public String jdbcUrl() {
        return "jdbc:h2:tcp://127.0.0.1:" + port() + "/./distlock;USER=sa;PASSWORD=";
    }

    /** Returns whether the server is running. */
    public synchronized boolean isRunning() {
        return server != null;
    }

    @Override
    public synchronized void start() {
        if (server != null) {
            throw new IllegalStateException("H2 on port " + port + " is already running");
        }
        try {
            server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists", "-baseDir", dir.toString()).start();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot start H2 on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Stops the server; its open connections are closed and the database file stays. */
    @Override
    public synchronized void stop() {
        if (server != null) {
            server.stop();
            server = null;
        }
    }

    /** The same as {@link #stop()}: the server runs in this JVM. */
    @Override
    public void kill() {
        stop();
    }

    @Override
    public void pause() {
        proxy.freeze();
    }

    @Override
    public void resume() {
        proxy.thaw();
    }

    @Override
    public void close() {
        stop();
        proxy.close();
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    @Override
    public String toString() {
        return "H2Server[" + jdbcUrl() + "]";
    }

    @Override
    public String otherSessionsQuery() {
        return "SELECT session_id FROM information_schema.sessions WHERE session_id <> SESSION_ID()";
    }

    @Override
    public String endSessionStatement() {
        return "CALL ABORT_SESSION(?)";
    }
}
