package io.distlock.jdbc.testing;

import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.checker.FaultKind;
import io.distlock.servers.TcpProxy;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * One database server for the SQL backend (PostgreSQL, MariaDB for mysql, or H2 in this JVM) and one
 * TCP proxy per client, so that one client's connections can be cut. Server faults: a restart (the
 * database keeps its data, so held locks survive it) and ending every client session, as an operator's
 * {@code pg_terminate_backend} or {@code KILL} does.
 */
final class SqlDeployment extends Deployment {
    /** The table the workers lock in. */
    static final String TABLE = "distlock_check_locks";
    private static final Pattern PORT = Pattern.compile("^(jdbc:[a-z0-9]+:(?:tcp:)?//127\\.0\\.0\\.1:)(\\d+)(/.*)$");

    /** The databases this deployment can start. */
    enum Engine {
        POSTGRES("PostgreSQL", PostgresServer::launch),
        MYSQL("MariaDB", MariaDbServer::launch),
        H2("H2", H2Server::launch);

        private final String product;
        private final Supplier<DatabaseServer> launch;

        Engine(String product, Supplier<DatabaseServer> launch) {
            this.product = product;
            this.launch = launch;
        }
    }

    private final Engine engine;
    private final List<TcpProxy> proxies = new ArrayList<>();
    private @Nullable DatabaseServer server;

    SqlDeployment(DeploymentSettings settings, Engine engine) {
        super(settings);
        this.engine = engine;
    }

    @Override
    public List<FaultKind> faultKinds() {
        return List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.PARTITION, FaultKind.RESTART, FaultKind.CONNECTION_KILL);
    }

    /**
     * A restart, or every session ended, can outlast a waiter's heartbeat (one lease, 500 ms in the checker's runs): the
     * waiters of the queue table's kinds whose rows ran out meanwhile join again at the tail (documented; no hold is
     * lost: a holder's lease runs on the same database clock and ends first).
     */
    @Override
    public Set<FaultKind> requeueFaults() {
        return Set.of(FaultKind.RESTART, FaultKind.CONNECTION_KILL);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        DatabaseServer started = engine.launch.get();
        server = started;
        // the table, once, before the workers race to create it (through the registry: this module knows no backend class)
        LockClients.open(started.jdbcUrl(), OpenOptions.defaults().namespace(TABLE)).close();
        for (int i = 0; i < settings.processes(); i++) {
            proxies.add(TcpProxy.to(started.port()));
        }
        return engine.product + " " + started.jdbcUrl() + " through one proxy per client";
    }

    private static Matcher urlParts(String url) {
        Matcher m = PORT.matcher(url);
        if (!m.matches()) {
            throw new IllegalStateException("no 127.0.0.1:port in " + url);
        }
        return m;
    }

    @Override
    public WorkerClient workerClient(int slot) {
        Matcher m = urlParts(started(server).jdbcUrl());
        return new WorkerClient(m.group(1) + proxies.get(slot).port() + m.group(3), TABLE, DEFAULT_OPERATION_TIMEOUT);
    }

    @Override
    public Optional<TcpProxy> clientLink(int slot) {
        return Optional.of(proxies.get(slot));
    }

    @Override
    public String injectServerFault(FaultKind kind) throws InterruptedException {
        DatabaseServer current = started(server);
        return switch (kind) {
            case RESTART -> {
                current.stop();
                current.start();
                yield "restarted the " + engine.product + " server (its data persists: held locks survive)";
            }
            case CONNECTION_KILL -> "ended " + endSessions() + " client sessions on the " + engine.product + " server";
            default -> super.injectServerFault(kind);
        };
    }

    /** Ends every other session on the server, directly (not through a client's proxy); returns how many. */
    private int endSessions() {
        // the coordinator's connection goes to the server itself, as an operator's would
        DatabaseServer current = started(server);
        try (Connection connection = DriverManager.getConnection(current.jdbcUrl())) {
            List<Long> sessions = new ArrayList<>();
            try (Statement query = connection.createStatement(); ResultSet rows = query.executeQuery(current.otherSessionsQuery())) {
                while (rows.next()) {
                    sessions.add(rows.getLong(1));
                }
            }
            int ended = 0;
            for (long session : sessions) {
                try (Statement end = connection.createStatement()) {
                    end.execute(current.endSessionStatement().replace("?", Long.toString(session)));
                    ended++;
                } catch (SQLException e) {
                    // the session ended on its own in the meantime
                }
            }
            return ended;
        } catch (SQLException e) {
            throw new IllegalStateException("cannot end the sessions on " + current.jdbcUrl() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        proxies.forEach(TcpProxy::close);
        if (server != null) {
            server.close();
        }
    }
}
