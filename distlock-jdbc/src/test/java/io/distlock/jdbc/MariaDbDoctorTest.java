package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import java.sql.SQLException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SQL doctor against a real MariaDB server: read_only switched on and off (restored after), timeouts as the target's
 * session variables set them, and Galera judged from its variables.
 */
class MariaDbDoctorTest extends SqlDoctorContract {
    @RegisterExtension
    static final MariaDbExtension database = new MariaDbExtension();

    @Override
    protected SqlDeployment database() {
        return database;
    }

    @Override
    protected String unreachableTarget(int port) {
        return "jdbc:mariadb://127.0.0.1:" + port + "/distlock?user=root&password=secret";
    }

    @Override
    protected String defaultIsolation() {
        return "REPEATABLE READ";
    }

    @Test
    void readOnlyIsRiskyAndWritableIsOk() throws SQLException {
        String user = database.urlAs("doctor_user"); // no SUPER or READ ONLY ADMIN: read_only binds it, as it binds most applications
        List<Finding> readOnly;
        try {
            database.execute(List.of("SET GLOBAL read_only = ON"));
            readOnly = diagnose(user, uniqueTable());
        } finally {
            database.execute(List.of("SET GLOBAL read_only = OFF"));
        }
        Finding risky = finding(readOnly, "jdbc.read-only");
        assertThat(risky.severity()).isEqualTo(Severity.RISKY);
        assertThat(risky.observed()).contains("read_only ON");
        assertThat(risky.why()).contains("every acquire fails");
        assertThat(risky.fix()).contains("SET GLOBAL read_only = OFF");
        assertThat(Finding.exitCode(readOnly)).isEqualTo(1);

        List<Finding> writable = diagnose(user, uniqueTable());
        assertThat(finding(writable, "jdbc.read-only").severity()).isEqualTo(Severity.OK);
        assertThat(finding(writable, "jdbc.read-only").observed()).contains("read_only OFF");
        assertThat(Finding.exitCode(writable)).isZero();
    }

    @Test
    void timeoutsShorterThanTheOperationTimeoutAreRiskyAndTheDefaultsAreOk() {
        Finding lockWait = finding(diagnose(database.target() + "&sessionVariables=innodb_lock_wait_timeout=1", uniqueTable()), "jdbc.timeouts");
        assertThat(lockWait.severity()).isEqualTo(Severity.RISKY);
        assertThat(lockWait.why()).contains("innodb_lock_wait_timeout 1 s").contains("row lock");
        Finding statementTime = finding(diagnose(database.target() + "&sessionVariables=max_statement_time=0.5", uniqueTable()), "jdbc.timeouts");
        assertThat(statementTime.severity()).isEqualTo(Severity.RISKY);
        assertThat(statementTime.why()).contains("max_statement_time 500 ms");
        Finding defaults = finding(diagnose(database.target(), uniqueTable()), "jdbc.timeouts");
        assertThat(defaults.severity()).as("innodb_lock_wait_timeout 50 s, no max_statement_time").isEqualTo(Severity.OK);
        assertThat(defaults.observed()).contains("innodb_lock_wait_timeout 50 s").contains("max_statement_time 0 (off)").contains("wait_timeout");
        assertThat(finding(diagnose(database.target() + "&sessionVariables=wait_timeout=1", uniqueTable()), "jdbc.timeouts").severity())
                .as("an idle timeout closes idle connections only, which the client replaces").isEqualTo(Severity.OK);
    }

    @Test
    void aServerOutsideGaleraIsOkAndGaleraWithSeveralNodesIsRisky() {
        Finding single = finding(diagnose(database.target(), uniqueTable()), "jdbc.multi-primary");
        assertThat(single.severity()).isEqualTo(Severity.OK);
        assertThat(single.observed()).startsWith("wsrep_on ");
        // a Galera cluster cannot be started here: the judgement of what its variables would say, on its own
        assertThat(SqlDoctorCatalogue.galera("ON", "3").severity()).isEqualTo(Severity.RISKY);
        assertThat(SqlDoctorCatalogue.galera("ON", "3").fix()).contains("one node");
        assertThat(SqlDoctorCatalogue.galera("ON", "1").severity()).isEqualTo(Severity.OK);
        assertThat(SqlDoctorCatalogue.galera("OFF", null).severity()).isEqualTo(Severity.OK);
        assertThat(SqlDoctorCatalogue.galera(null, null).severity()).isEqualTo(Severity.OK);
    }

    @Test
    void aUserConnectionLimitBelowTheClientsConnectionsIsRiskyAndNoLimitIsOk() throws SQLException {
        database.execute(List.of("CREATE USER IF NOT EXISTS 'doctor_limited'@'%' WITH MAX_USER_CONNECTIONS 2",
                "GRANT ALL ON distlock.* TO 'doctor_limited'@'%'"));
        Finding risky = finding(diagnose(database.urlFor("doctor_limited", database.port()), uniqueTable()), CONNECTIONS);
        assertThat(risky.severity()).isEqualTo(Severity.RISKY);
        assertThat(risky.observed()).contains("max_user_connections of doctor_limited 2, 1 open");
        assertThat(risky.why()).contains("leaves 1 connection free").contains("cannot open its " + JdbcLockClient.DEFAULT_CONNECTIONS);

        Finding unlimited = finding(diagnose(database.urlAs("doctor_unlimited"), uniqueTable()), CONNECTIONS);
        assertThat(unlimited.severity()).as(unlimited.toString()).isEqualTo(Severity.OK);
        assertThat(unlimited.observed()).contains("max_connections ").doesNotContain("max_user_connections");
    }
}
