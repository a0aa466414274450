package io.distlock.jdbc;

import io.distlock.servers.BackendControl;
import io.distlock.servers.FreePorts;
import io.distlock.servers.TcpProxy;
import io.distlock.testkit.DeploymentExtension;
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
 * An H2 TCP server in this JVM, on a file database that survives restarts, reached through a
 * {@link TcpProxy} so that pausing freezes it as clients see it (an in-process server cannot be SIGSTOPped).
 * A kill is a stop: the server is in this JVM.
 */
final class H2ServerExtension extends DeploymentExtension<H2ServerExtension.Running> implements SqlDeployment {

    /** The server, its port, its files and the proxy in front. */
    static final class Running {
        private final Path dir;
        private final int port = FreePorts.next();
        private final TcpProxy proxy;
        private @Nullable Server server;

        Running(Path dir) {
            this.dir = dir;
            start();
            this.proxy = TcpProxy.to(port);
        }

        void start() {
            try {
                server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists", "-baseDir", dir.toString()).start();
            } catch (SQLException e) {
                throw new IllegalStateException("cannot start H2 on port " + port, e);
            }
        }

        void stop() {
            if (server != null) {
                server.stop();
                server = null;
            }
        }
    }

    @Override
    protected Running launch() {
        try {
            return new Running(Files.createTempDirectory("distlock-h2-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    protected void shutDown(Running running) {
        running.stop();
        running.proxy.close();
        try (Stream<Path> files = Files.walk(running.dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String target() {
        return "jdbc:h2:tcp://127.0.0.1:" + servers().proxy.port() + "/./distlock;USER=sa;PASSWORD=";
    }

    @Override
    public BackendControl control() {
        Running running = servers();
        return new BackendControl() {
            @Override
            public void stop() {
                running.stop();
            }

            @Override
            public void kill() {
                running.stop();
            }

            @Override
            public void start() {
                running.start();
            }

            @Override
            public void pause() {
                running.proxy.freeze();
            }

            @Override
            public void resume() {
                running.proxy.thaw();
            }
        };
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    public String killSession() {
        return "CALL ABORT_SESSION(?)";
    }

    @Override
    public String sessionId() {
        return "SELECT SESSION_ID()";
    }

    @Override
    public String otherSessions() {
        return "SELECT session_id FROM information_schema.sessions WHERE session_id <> SESSION_ID()";
    }
}
