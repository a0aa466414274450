package io.distlock.jdbc;

import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every tier of the contract SQL has, and the SQL tiers, against an H2 TCP server in this JVM, on a file database. */
@Tag(BackendContract.ANOTHER_DEPLOYMENT) // fair and write tiers in -Pslow; on PostgreSQL in ./mvnw verify
class H2LockContractTest extends BackendContract {
    @RegisterExtension
    static final H2ServerExtension database = new H2ServerExtension();

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
