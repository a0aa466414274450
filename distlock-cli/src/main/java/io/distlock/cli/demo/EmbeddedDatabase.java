package io.distlock.cli.demo;

import io.distlock.servers.FreePorts;
import io.distlock.servers.PostgresServer;
import java.sql.SQLException;
import org.h2.tools.Server;

/** The database the demo starts when {@code --jdbc-url} names none: a PostgreSQL server, or an H2 TCP server in this JVM. */
final class EmbeddedDatabase implements AutoCloseable {
    private final String jdbcUrl;
    private final AutoCloseable stop;

    private EmbeddedDatabase(String jdbcUrl, AutoCloseable stop) {
        this.jdbcUrl = jdbcUrl;
        this.stop = stop;
    }

    /** Starts the database of {@code backend} (postgres or h2). */
    static EmbeddedDatabase start(DemoBackend backend) throws SQLException {
        return switch (backend) {
            case POSTGRES -> {
                PostgresServer server = PostgresServer.launch();
                yield new EmbeddedDatabase(server.jdbcUrl(), server::close);
            }
            case H2 -> {
                int port = FreePorts.next();
                Server server = Server.createTcpServer("-tcpPort", Integer.toString(port), "-ifNotExists").start();
                yield new EmbeddedDatabase("jdbc:h2:tcp://127.0.0.1:" + port + "/mem:distlock-demo;DB_CLOSE_DELAY=-1;USER=sa;PASSWORD=", server::stop);
            }
            default -> throw new IllegalArgumentException("the demo starts no " + backend.id() + " database: pass --jdbc-url");
        };
    }

    /** Returns the JDBC URL of the database. */
    String jdbcUrl() {
        return jdbcUrl;
    }

    @Override
    public void close() throws Exception {
        stop.close();
    }
}
