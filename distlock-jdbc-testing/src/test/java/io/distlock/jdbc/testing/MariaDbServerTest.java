package io.distlock.jdbc.testing;

import io.distlock.servers.BackendControl;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;

/**
 * A real MariaDB on a free port (as root when the tests run as root, which MariaDB allows when told). Tagged slow (run by
 * -Pslow in CI): its restarts take most of a minute, on the path every SQL test waits for, and MariaDbLockContractTest
 * restarts the same server under held locks in ./mvnw verify.
 */
@Tag("slow")
class MariaDbServerTest extends DatabaseServerContract {
    private static MariaDbServer mariadb;

    @BeforeAll
    static void launch() {
        mariadb = MariaDbServer.launch();
    }

    @AfterAll
    static void close() {
        mariadb.close();
    }

    @Override
    protected BackendControl server() {
        return mariadb;
    }

    @Override
    protected String jdbcUrl() {
        return mariadb.jdbcUrl();
    }

    @Override
    protected int port() {
        return mariadb.port();
    }

    @Override
    protected int defaultPort() {
        return 3306;
    }

    @Override
    protected boolean isRunning() {
        return mariadb.isRunning();
    }

    /** Its temporary files are its own: a server starting in the shared /tmp removed another server's temporary tables. */
    @org.junit.jupiter.api.Test
    void temporaryFilesGoToADirectoryOfItsOwnNotTheSharedTmp() throws Exception {
        try (java.sql.Connection connection = java.sql.DriverManager.getConnection(mariadb.jdbcUrl());
                java.sql.ResultSet row = connection.createStatement().executeQuery("SELECT @@tmpdir")) {
            org.assertj.core.api.Assertions.assertThat(row.next()).isTrue();
            org.assertj.core.api.Assertions.assertThat(java.nio.file.Path.of(row.getString(1)).toRealPath())
                    .isEqualTo(mariadb.tmpdir().toRealPath());
        }
    }

    @Override
    protected String versionCheck() {
        return "SELECT VERSION() LIKE '11.4.%-MariaDB' AND DATABASE() = 'distlock'";
    }
}
