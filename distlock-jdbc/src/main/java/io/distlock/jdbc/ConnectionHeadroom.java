package io.distlock.jdbc;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The {@code jdbc.connections} judgement: whether a client's connections fit in the application's pool and in what
 * the server has free.
 */
final class ConnectionHeadroom {
    /*
     * The client keeps every connection it opens until it closes (SqlConnections: one per worker, opened when a worker
     * first needs one). From a pool, that means the pool lends them for good: a pool whose maximum is not above the
     * client's connections leaves the application none once the client has them all, and while the application holds
     * the whole pool a worker of the client waits in getConnection (HikariCP: connectionTimeout, 30 s) past the
     * operation timeout. A renewal on that worker fails; renewals failing for a whole lease lose the lock.
     *
     * The server's free connections are a snapshot, the doctor's own connection counted as open: fewer free than a client
     * opens means one starting now (another instance, or this one after a restart closed its connections) cannot open
     * them all. Limits that do not bind the doctor's user (a superuser's) are not read.
     */

    /**
     * One limit on the server's connections.
     *
     * @param name the limit as the server names it, e.g. {@code max_connections}
     * @param limit how many connections it allows
     * @param open how many it counts now, the doctor's own among them
     */
    record Limit(String name, int limit, int open) {
        int free() {
            return Math.max(0, limit - open);
        }
    }

    private ConnectionHeadroom() {}

    /**
     * Returns the finding.
     *
     * @param clientConnections how many connections a client opens at most
     * @param dataSource the application's DataSource the client would borrow from, if one is offered
     * @param limits the server's limits that bind the doctor's user; empty for a database without any (H2)
     */
    static Finding judge(int clientConnections, Optional<DataSource> dataSource, List<Limit> limits) {
        List<String> observed = new ArrayList<>();
        List<String> why = new ArrayList<>();
        List<String> fixes = new ArrayList<>();
        observed.add("client connections " + clientConnections);
        boolean poolUnknown = false;
        if (dataSource.isPresent()) {
            String pool = dataSource.get().getClass().getSimpleName();
            Optional<PoolCapacity> capacity = PoolCapacity.of(dataSource.get());
            if (capacity.isEmpty()) {
                poolUnknown = true;
                observed.add("DataSource " + pool + ": no maximum the doctor can read");
            } else if (capacity.get().maximum() < 0) {
                observed.add("DataSource " + pool + " " + capacity.get().property() + " " + capacity.get().maximum() + " (no limit)");
            } else {
                int maximum = capacity.get().maximum();
                observed.add("DataSource " + pool + " " + capacity.get().property() + " " + maximum);
                if (maximum <= clientConnections) {
                    why.add("the pool's " + capacity.get().property() + " " + maximum + " is not above the client's " + clientConnections
                            + " connections: the client keeps what it borrows until it closes, so once it has them all the application has "
                            + (maximum < clientConnections ? "none and the client itself lacks " + (clientConnections - maximum) : "none")
                            + ", and while the application holds the whole pool a renewal waits for a connection past the operation "
                            + "timeout; renewals that fail for a whole lease lose the lock");
                    fixes.add("raise " + capacity.get().property() + " above " + clientConnections + " by what the application itself "
                            + "needs, or give the client connections of its own (a JDBC URL instead of the DataSource)");
                }
            }
        } else {
            observed.add("no DataSource offered: the client opens connections of its own");
        }
        for (Limit limit : limits) {
            observed.add(limit.name() + " " + limit.limit() + ", " + limit.open() + " open");
            if (limit.free() < clientConnections) {
                why.add(limit.name() + " leaves " + limit.free() + " connection" + (limit.free() == 1 ? "" : "s") + " free (" + limit.open()
                        + " open, this doctor's among them): a client starting now cannot open its " + clientConnections + ", and "
                        + "operations on a worker whose connection is refused fail; renewals that fail for a whole lease lose the lock");
                fixes.add("raise " + limit.name() + ", or close idle connections of other clients");
            }
        }
        String seen = String.join("; ", observed);
        if (!why.isEmpty()) {
            return SqlDoctorCatalogue.CONNECTIONS.finding(Severity.RISKY, seen, String.join("; ", why), String.join("; ", fixes));
        }
        if (poolUnknown) {
            return SqlDoctorCatalogue.CONNECTIONS.unknown(seen + " (known: HikariCP, DBCP2, Tomcat JDBC, c3p0, UCP, Vibur)",
                    "the pool's maximum could not be read, so whether the client's connections leave the application room is not judged");
        }
        return SqlDoctorCatalogue.CONNECTIONS.ok(seen, limits.isEmpty() && dataSource.isEmpty()
                ? "no pool is shared and the database sets no connection limit"
                : "room for the client's connections beside the application's, and for another client to start");
    }
}
