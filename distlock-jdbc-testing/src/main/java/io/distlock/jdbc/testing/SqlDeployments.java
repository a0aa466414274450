package io.distlock.jdbc.testing;

import io.distlock.LockKind;
import io.distlock.servers.deployment.DeploymentProvider;
import io.distlock.servers.deployment.DeploymentType;
import io.distlock.servers.deployment.ServerType;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The SQL deployments the checker can start: {@code postgres}, {@code mysql} (a MariaDB server), {@code h2}. */
public final class SqlDeployments implements DeploymentProvider {
    /** For {@link java.util.ServiceLoader}. */
    public SqlDeployments() {}

    @Override
    public List<DeploymentType> deployments() {
        return List.of(
                DeploymentType.of("postgres", "a PostgreSQL server, one proxy per client", Set.of(LockKind.values()),
                        settings -> new SqlDeployment(settings, SqlDeployment.Engine.POSTGRES)),
                new DeploymentType("mysql", "a MariaDB server (MySQL's protocol and SQL), one proxy per client", Set.of(LockKind.values()), false,
                        () -> MariaDbServer.binariesAvailable() ? Optional.empty()
                                : Optional.of("--backend mysql runs a MariaDB server, but " + MariaDbServer.binariesMissing()),
                        settings -> new SqlDeployment(settings, SqlDeployment.Engine.MYSQL)),
                DeploymentType.of("h2", "an H2 TCP server in this JVM, one proxy per client", Set.of(LockKind.values()),
                        settings -> new SqlDeployment(settings, SqlDeployment.Engine.H2)));
    }

    @Override
    public List<ServerType> servers() {
        return List.of(
                ServerType.of("postgres", "a PostgreSQL server", () -> {
                    PostgresServer server = PostgresServer.launch();
                    return new ServerType.StartedServer(server.jdbcUrl(), "", server::close);
                }),
                new ServerType("mariadb", "a MariaDB server", () -> MariaDbServer.binariesAvailable() ? Optional.empty()
                        : Optional.of(MariaDbServer.binariesMissing()), () -> {
                            MariaDbServer server = MariaDbServer.launch();
                            return new ServerType.StartedServer(server.jdbcUrl(), "", server::close);
                        }),
                ServerType.of("h2", "an H2 TCP server in this JVM", () -> {
                    H2Server server = H2Server.launch();
                    return new ServerType.StartedServer(server.jdbcUrl(), "", server::close);
                }));
    }
}
