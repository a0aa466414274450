package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.servers.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every tier of the contract SQL has, and the SQL tiers, against a real MariaDB server. */
@Tag(BackendContract.ANOTHER_DEPLOYMENT) // fair and write tiers in -Pslow; on PostgreSQL in ./mvnw verify
class MariaDbLockContractTest extends BackendContract {
    @RegisterExtension
    static final MariaDbExtension database = new MariaDbExtension();

    @Override
    protected BackendHooks hooks() {
        return new SqlHooks(database);
    }

    /** What only SQL databases have: the lock table, the client's sessions, transactions, a read-only server. */
    @Nested
    class Sql extends SqlLockContract {
        @Override
        protected SqlDeployment database() {
            return database;
        }

        /** The driver's bulk protocol answers a batch without update counts: renewals then go one by one, and are kept. */
        @Test
        void renewalsGoOnWhenTheDriverDoesNotCountABatchsUpdates() throws Exception {
            String url = database.urlAs(newUser()) + "&useBulkStmts=true";
            LockClient client = closeAfterTest(JdbcLockClient.builder().jdbcUrl(url).build());
            List<Lease> leases = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                names.add(uniqueName());
                leases.add(client.getLock(names.get(i), lease(Duration.ofMillis(1200), true)).acquire(SOON));
            }
            long start = System.nanoTime();
            Await.until(SOON, "three lease times have passed", () -> System.nanoTime() - start > Duration.ofMillis(3600).toNanos());
            for (int i = 0; i < leases.size(); i++) {
                assertThat(leases.get(i).isValid()).as("lease %d still valid", i).isTrue();
                assertLocked(names.get(i));
            }
            leases.forEach(Lease::close);
        }
    }

    /** The queue table's own cases: a dead waiter at the head, a stale downgrade, a table without its queue table. */
    @Nested
    class SqlKinds extends SqlKindsContract {
        @Override
        protected SqlDeployment database() {
            return database;
        }
    }

    /** Removing a namespace: its two tables dropped; the application's tables and other namespaces left alone. */
    @Nested
    class SqlNamespaceRemoval extends SqlNamespaceRemovalContract {
        @Override
        protected SqlDeployment database() {
            return database;
        }
    }
}
