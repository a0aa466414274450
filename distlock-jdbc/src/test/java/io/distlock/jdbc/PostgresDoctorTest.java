package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Finding;
import java.sql.Statement;
import java.sql.DriverManager;
import java.sql.Connection;
import io.distlock.jdbc.testing.PostgresServer;
import io.distlock.LockException;
import io.distlock.Finding.Severity;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQL doctor against a real PostgreSQL server; read-only sessions and timeouts are set per role (ALTER ROLE ... SET),
 * as a DBA sets them, on roles of the test's own.
 */
class PostgresDoctorTest extends SqlDoctorContract {
    @RegisterExtension
    static final PostgresExtension database = new PostgresExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }

    @Override
    protected String unreachableTarget(int port) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres&password=secret";
    }

    @Override
    protected String defaultIsolation() {
        return "READ COMMITTED";
    }

    /** Returns the target as a new login role whose sessions start with {@code settings} ({@code name = 'value'}). */
    private static String roleWith(String role, String... settings) throws SQLException {
        database.execute(List.of("CREATE ROLE " + role + " LOGIN"));
        for (String setting : settings) {
            database.execute(List.of("ALTER ROLE " + role + " SET " + setting));
        }
        return database.target().replace("user=postgres", "user=" + role);
    }

    @Test
    void aRoleWhoseSessionsStartReadOnlyIsRiskyAndAWritableRoleIsOk() throws SQLException {
        List<Finding> readOnly = diagnose(roleWith("doctor_read_only", "default_transaction_read_only = on"), uniqueTable());
        Finding risky = finding(readOnly, "jdbc.read-only");
        assertThat(risky.severity()).isEqualTo(Severity.RISKY);
        assertThat(risky.observed()).contains("pg_is_in_recovery false").contains("default_transaction_read_only on (from: user)");
        assertThat(risky.why()).contains("every acquire fails");
        assertThat(risky.fix()).contains("ALTER ROLE doctor_read_only RESET default_transaction_read_only");
        assertThat(Finding.exitCode(readOnly)).isEqualTo(1);

        Finding driverReadOnly = finding(diagnose(database.target() + "&readOnly=true", uniqueTable()), "jdbc.read-only");
        assertThat(driverReadOnly.severity()).as("pgjdbc's readOnly=true").isEqualTo(Severity.RISKY);
        assertThat(driverReadOnly.why()).contains("the driver opens read-only connections");

        List<Finding> writable = diagnose(roleWith("doctor_writable"), uniqueTable());
        assertThat(finding(writable, "jdbc.read-only").severity()).isEqualTo(Severity.OK);
        assertThat(Finding.exitCode(writable)).isZero();
    }

    @Test
    void timeoutsShorterThanTheOperationTimeoutAreRiskyAndLongerOrNoneAreOk() throws SQLException {
        Finding lockTimeout = finding(diagnose(roleWith("doctor_lock_timeout", "lock_timeout = '100ms'"), uniqueTable()), "jdbc.timeouts");
        assertThat(lockTimeout.severity()).isEqualTo(Severity.RISKY);
        assertThat(lockTimeout.why()).contains("lock_timeout 100 ms").contains("row lock");
        assertThat(lockTimeout.fix()).contains("ALTER ROLE doctor_lock_timeout RESET lock_timeout");

        String statementTimeout = roleWith("doctor_statement_timeout", "statement_timeout = '1s'");
        Finding shortStatements = finding(diagnose(statementTimeout, uniqueTable()), "jdbc.timeouts");
        assertThat(shortStatements.severity()).as("1 s against the default operation timeout of 3 s").isEqualTo(Severity.RISKY);
        assertThat(shortStatements.why()).contains("statement_timeout 1 s").contains("renewals cancelled for a whole lease");
        Finding withShortOperations = finding(LockClients.diagnose(statementTimeout, OpenOptions.defaults().namespace(uniqueTable())
                .operationTimeout(Duration.ofMillis(500))), "jdbc.timeouts");
        assertThat(withShortOperations.severity()).as("1 s against an operation timeout of 500 ms").isEqualTo(Severity.OK);

        assertThat(finding(diagnose(roleWith("doctor_long_timeouts", "statement_timeout = '60s'", "lock_timeout = '10s'",
                "idle_in_transaction_session_timeout = '1s'"), uniqueTable()), "jdbc.timeouts").severity())
                .as("timeouts longer than the operation timeout, and an idle one that never matters").isEqualTo(Severity.OK);
        assertThat(finding(diagnose(database.target(), uniqueTable()), "jdbc.timeouts").severity()).as("PostgreSQL's defaults: none")
                .isEqualTo(Severity.OK);
    }

    @Test
    void aRoleConnectionLimitBelowTheClientsConnectionsIsRiskyAndNoLimitIsOk() throws SQLException {
        String limited = roleWith("doctor_limited");
        database.execute(List.of("ALTER ROLE doctor_limited CONNECTION LIMIT 2"));
        Finding risky = finding(diagnose(limited, uniqueTable()), CONNECTIONS);
        assertThat(risky.severity()).isEqualTo(Severity.RISKY);
        assertThat(risky.observed()).contains("CONNECTION LIMIT of role doctor_limited 2, 1 open")
                .contains("max_connections less 3 reserved");
        assertThat(risky.why()).contains("leaves 1 connection free").contains("cannot open its " + JdbcLockClient.DEFAULT_CONNECTIONS);

        Finding unlimited = finding(diagnose(roleWith("doctor_unlimited"), uniqueTable()), CONNECTIONS);
        assertThat(unlimited.severity()).as(unlimited.toString()).isEqualTo(Severity.OK);
        assertThat(unlimited.observed()).doesNotContain("CONNECTION LIMIT of role");
        assertThat(finding(diagnose(database.target(), uniqueTable()), CONNECTIONS).observed())
                .as("a superuser: no role, database or reserved-slot limit binds it").contains("max_connections ").doesNotContain("reserved");
    }

    @Test
    void aStandbyIsRiskyAndTheClientIndeedCannotLockThere() {
        try (PostgresServer standby = PostgresServer.launch()) {
            standby.restartAsStandby();
            List<Finding> findings = diagnose(standby.jdbcUrl(), uniqueTable());
            Finding readOnly = finding(findings, "jdbc.read-only");
            assertThat(readOnly.severity()).isEqualTo(Severity.RISKY);
            assertThat(readOnly.observed()).contains("pg_is_in_recovery true");
            assertThat(readOnly.why()).contains("a standby");
            assertThat(readOnly.fix()).contains("targetServerType=primary");
            assertThat(Finding.exitCode(findings)).isEqualTo(1);
            assertThatThrownBy(() -> LockClients.open(standby.jdbcUrl(), OpenOptions.defaults().namespace(uniqueTable())))
                    .as("what the finding warns of: the client cannot even create its table").isInstanceOf(LockException.class);
        }
    }

    @Test
    void aSettingTheRoleMayNotReadIsUnknownNamingTheRefusalAndTheRestIsStillJudged() throws SQLException {
        database.execute(List.of("CREATE DATABASE doctor_hidden", "CREATE ROLE doctor_hidden_reader LOGIN"));
        String hidden = database.target().replace("/postgres?", "/doctor_hidden?").replace("user=postgres", "user=doctor_hidden_reader");
        try (Connection connection = DriverManager.getConnection(database.target().replace("/postgres?", "/doctor_hidden?"));
                Statement statement = connection.createStatement()) {
            statement.execute("REVOKE SELECT ON pg_catalog.pg_settings FROM PUBLIC"); // in this database only
            statement.execute("GRANT CREATE ON SCHEMA public TO doctor_hidden_reader");
        }
        List<Finding> findings = diagnose(hidden, uniqueTable());
        for (String check : List.of("jdbc.read-only", "jdbc.timeouts")) {
            Finding unknown = finding(findings, check);
            assertThat(unknown.severity()).as(unknown.toString()).isEqualTo(Severity.UNKNOWN);
            assertThat(unknown.observed()).contains("the server refused the doctor's query").contains("pg_settings");
        }
        assertThat(finding(findings, LOCK_TABLE).severity()).as("the checks it may read are judged").isEqualTo(Severity.OK);
        assertThat(Finding.exitCode(findings)).as("unknown does not change the exit code").isZero();
    }
}
