package io.distlock.cli.demo;

import io.distlock.jdbc.testing.H2Server;
import io.distlock.jdbc.testing.PostgresServer;

/** The database the demo starts when {@code --jdbc-url} names none: a PostgreSQL server, or an H2 TCP server in this JVM. */
final class EmbeddedDatabase implements AutoCloseable {
    private final String jdbcUrl;
    private final AutoCloseable stop;

    private EmbeddedDatabase(String jdbcUrl, AutoCloseable stop) {
        this.jdbcUrl = jdbcUrl;
        this.stop = stop;
    }

    /** Starts the database of {@code backend} (postgres or h2). */
    static EmbeddedDatabase start(DemoBackend backend) {
        return switch (backend) {
            case POSTGRES -> {
                PostgresServer server = PostgresServer.launch();
                yield new EmbeddedDatabase(server.jdbcUrl(), server::close);
            }
            case H2 -> {
                H2Server server = H2Server.launch();
                yield new EmbeddedDatabase(server.jdbcUrl(), server::close);
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
