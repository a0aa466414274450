package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** The SQL doctor against an H2 TCP server in this JVM, and a file database opened read-only. */
class H2DoctorTest extends SqlDoctorContract {
    @RegisterExtension
    static final H2ServerExtension database = new H2ServerExtension();
    private static final String LONG_LOCK_TIMEOUT = ";LOCK_TIMEOUT=10000";

    @Override
    protected SqlDeployment database() {
        return database;
    }

    @Override
    protected String goodTarget() {
        return database.target() + LONG_LOCK_TIMEOUT;
    }

    @Override
    protected String unreachableTarget(int port) {
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/./distlock;USER=sa;PASSWORD=secret";
    }

    @Override
    protected String defaultIsolation() {
        return "READ COMMITTED";
    }

    @Test
    void h2sDefaultLockTimeoutIsShorterThanTheOperationTimeoutSoRiskyAndALongerOneIsOk() {
        Finding risky = finding(diagnose(database.target(), uniqueTable()), "jdbc.timeouts");
        assertThat(risky.severity()).isEqualTo(Severity.RISKY);
        assertThat(risky.why()).contains("LOCK_TIMEOUT 2 s");
        assertThat(risky.fix()).contains("LOCK_TIMEOUT=10000");
        assertThat(finding(diagnose(goodTarget(), uniqueTable()), "jdbc.timeouts").severity()).isEqualTo(Severity.OK);
        assertThat(finding(diagnose(goodTarget() + ";QUERY_TIMEOUT=500", uniqueTable()), "jdbc.timeouts").severity())
                .as("a query timeout of 500 ms").isEqualTo(Severity.RISKY);
    }

    @Test
    void aDatabaseOpenedReadOnlyIsRiskyAndWritableIsOk(@TempDir Path dir) throws Exception {
        String url = "jdbc:h2:" + dir.resolve("doctor") + ";USER=sa" + LONG_LOCK_TIMEOUT;
        try (Connection connection = DriverManager.getConnection(url); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE made_writable (id INT)"); // the file exists before it is opened read-only
        }
        List<Finding> readOnly = diagnose(url + ";ACCESS_MODE_DATA=r", uniqueTable());
        Finding risky = finding(readOnly, "jdbc.read-only");
        assertThat(risky.severity()).isEqualTo(Severity.RISKY);
        assertThat(risky.observed()).contains("READONLY() true");
        assertThat(Finding.exitCode(readOnly)).isEqualTo(1);
        List<Finding> writable = diagnose(url, uniqueTable());
        assertThat(finding(writable, "jdbc.read-only").severity()).isEqualTo(Severity.OK);
        assertThat(Finding.exitCode(writable)).isZero();
    }

    @Test
    void aPoolWhoseMaximumCannotBeReadIsUnknownAndNoPoolIsOk() {
        JdbcDataSource plain = new JdbcDataSource(); // H2's own: no pool, no maximum
        Matcher credentials = Pattern.compile(";USER=([^;]*)(?:;PASSWORD=([^;]*))?").matcher(goodTarget());
        assertThat(credentials.find()).as(goodTarget()).isTrue();
        plain.setURL(credentials.replaceFirst("")); // it passes its user and password itself: in the URL too, H2 refuses them twice
        plain.setUser(credentials.group(1));
        plain.setPassword(credentials.group(2) == null ? "" : credentials.group(2));
        Finding unknown = finding(LockClients.diagnose(goodTarget(), OpenOptions.defaults().namespace(uniqueTable()).resource(plain)), CONNECTIONS);
        assertThat(unknown.severity()).isEqualTo(Severity.UNKNOWN);
        assertThat(unknown.observed()).contains("DataSource JdbcDataSource: no maximum the doctor can read");
        Finding own = finding(diagnose(goodTarget(), uniqueTable()), CONNECTIONS);
        assertThat(own.severity()).isEqualTo(Severity.OK);
        assertThat(own.why()).contains("no pool is shared and the database sets no connection limit");
    }
}
