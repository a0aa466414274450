package io.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.jdbc.Database;
import io.distlock.jdbc.JdbcLockClient;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The starter's distlock.jdbc.* properties that pick the login and the table's creation, on an H2 database in this JVM. */
class JdbcPropertiesTest {
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class))
            .withPropertyValues("distlock.backend=jdbc");

    @Test
    void usernameAndPasswordLogTheClientInAsThatUser() throws Exception {
        String url = "jdbc:h2:mem:credentials;DB_CLOSE_DELAY=-1";
        try (Connection admin = DriverManager.getConnection(url, "sa", "")) {
            execute(admin, "CREATE USER locker PASSWORD 'secret' ADMIN");
            runner.withPropertyValues("distlock.jdbc.url=" + url, "distlock.jdbc.username=locker", "distlock.jdbc.password=secret").run(context -> {
                try (Lease lease = context.getBean(LockClient.class).getLock("order:1").acquire(Duration.ofSeconds(5))) {
                    assertThat(lease.isValid()).isTrue();
                    assertThat(sessionsOf(admin, "LOCKER")).as("sessions of user locker: the client's").isPositive();
                }
            });
            runner.withPropertyValues("distlock.jdbc.url=" + url, "distlock.jdbc.username=locker", "distlock.jdbc.password=wrong")
                    .run(context -> assertThat(context).as("the client with a wrong password").hasFailed()
                            .getFailure().rootCause().hasMessageContaining("Wrong user name or password"));
        }
    }

    @Test
    void createTableFalseRefusesAMissingTableQuotingItsDdlAndUsesOneMadeFromIt() throws Exception {
        String url = "jdbc:h2:mem:no-create;DB_CLOSE_DELAY=-1";
        try (Connection admin = DriverManager.getConnection(url, "sa", "")) {
            ApplicationContextRunner withoutCreate = runner.withPropertyValues("distlock.jdbc.url=" + url + ";USER=sa", "distlock.jdbc.table=dba_locks",
                    "distlock.jdbc.create-table=false");
            withoutCreate.run(context -> assertThat(context).as("create-table=false, and no table").hasFailed()
                    .getFailure().hasStackTraceContaining("table dba_locks does not exist").hasStackTraceContaining("CREATE TABLE IF NOT EXISTS dba_locks"));
            assertThat(tableExists(admin, "DBA_LOCKS")).as("the table, after a start with create-table=false").isFalse();

            execute(admin, JdbcLockClient.ddl(Database.H2, "dba_locks").strip().replaceAll(";$", ""));
            withoutCreate.run(context -> {
                try (Lease lease = context.getBean(LockClient.class).getLock("order:1").acquire(Duration.ofSeconds(5))) {
                    assertThat(lease.fencingToken()).isEqualTo(1);
                }
            });
        }
    }

    private static void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
    }

    private static long sessionsOf(Connection admin, String user) throws SQLException {
        try (PreparedStatement statement = admin.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = ?")) {
            statement.setString(1, user);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private static boolean tableExists(Connection admin, String table) throws SQLException {
        try (PreparedStatement statement = admin.prepareStatement("SELECT COUNT(*) FROM INFORMATION_SCHEMA.TABLES WHERE TABLE_NAME = ?")) {
            statement.setString(1, table);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1) > 0;
            }
        }
    }
}
