package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.distlock.servers.FreePorts;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The SQL doctor's findings that every database has, against a real server: the tables as the client makes them and
 * without their keys, missing tables, the isolation level, an unreachable server. Each class for a database adds its
 * own settings (read-only, timeouts) configured both ways.
 */
abstract class SqlDoctorContract {
    static final String LOCK_TABLE = "jdbc.lock-table";
    static final String QUEUE_TABLE = "jdbc.queue-table";
    static final String CONNECTIONS = "jdbc.connections";

    /** Returns the database under test. */
    protected abstract SqlDeployment database();

    /** Returns the target with every setting as it should be (H2: a lock timeout longer than the operation timeout). */
    protected String goodTarget() {
        return database().target();
    }

    /** Returns a target of this database on {@code port}, where nothing listens, with password {@code secret}. */
    protected abstract String unreachableTarget(int port);

    /** Returns the isolation level a new session of the test server starts with, as the doctor names it. */
    protected abstract String defaultIsolation();

    static List<Finding> diagnose(String target, String table) {
        return LockClients.diagnose(target, OpenOptions.defaults().namespace(table));
    }

    static Finding finding(List<Finding> findings, String check) {
        return findings.stream().filter(f -> f.check().equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + check + " in " + findings));
    }

    static String uniqueTable() {
        return "doctor_" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Returns the client's CREATE TABLE statements for {@code table}: the lock table's, then the queue table's. */
    private List<String> ddl(String table) {
        return List.of(JdbcLockClient.ddl(database().kind(), table).split(";\n"));
    }

    @Test
    void theTablesTheClientCreatesAreOkAndSoIsEveryFindingOfAWellSetUpServer() throws InterruptedException {
        String table = uniqueTable();
        try (LockClient client = LockClients.open(goodTarget(), OpenOptions.defaults().namespace(table))) {
            client.getLock("made-by-the-client").acquire().close();
        }
        List<Finding> findings = diagnose(goodTarget(), table);
        assertThat(finding(findings, LOCK_TABLE).severity()).isEqualTo(Severity.OK);
        assertThat(finding(findings, QUEUE_TABLE).severity()).isEqualTo(Severity.OK);
        assertThat(findings).as("every finding of a writable server with the client's tables").allSatisfy(f ->
                assertThat(f.severity()).as(f.toString()).isEqualTo(Severity.OK));
        assertThat(Finding.exitCode(findings)).isZero();
    }

    @Test
    void missingTablesAreOkWhenTheClientCreatesThemAndRiskyWithCreateTableFalse() {
        String table = uniqueTable();
        List<Finding> created = diagnose(goodTarget(), table);
        assertThat(finding(created, LOCK_TABLE).severity()).isEqualTo(Severity.OK);
        assertThat(finding(created, LOCK_TABLE).why()).contains("creates it");
        assertThat(finding(created, QUEUE_TABLE).severity()).isEqualTo(Severity.OK);
        assertThat(Finding.exitCode(created)).isZero();

        List<Finding> refused = diagnose(withCreateTableFalse(goodTarget()), table);
        assertThat(finding(refused, LOCK_TABLE).severity()).isEqualTo(Severity.RISKY);
        assertThat(finding(refused, LOCK_TABLE).why()).contains("refuses to open");
        assertThat(Finding.exitCode(refused)).isEqualTo(1);
        assertThatThrownBy(() -> LockClients.open(withCreateTableFalse(goodTarget()), OpenOptions.defaults().namespace(table)))
                .as("the client does refuse to open").isInstanceOf(LockException.class);
    }

    private static String withCreateTableFalse(String target) {
        return target + (target.contains("?") ? "&" : "?") + "createTable=false";
    }

    @Test
    void aLockTableWithoutItsPrimaryKeyIsRiskyBecauseTheClientRefusesToOpenOnIt() throws SQLException {
        String table = uniqueTable();
        List<String> ddl = ddl(table);
        database().execute(List.of(ddl.get(0).replace(" PRIMARY KEY", ""), ddl.get(1)));
        List<Finding> findings = diagnose(goodTarget(), table);
        Finding lockTable = finding(findings, LOCK_TABLE);
        assertThat(lockTable.severity()).isEqualTo(Severity.RISKY);
        assertThat(lockTable.observed()).contains("no PRIMARY KEY or UNIQUE constraint on lock_key");
        assertThat(lockTable.fix()).contains("ADD PRIMARY KEY (lock_key)");
        assertThat(finding(findings, QUEUE_TABLE).severity()).isEqualTo(Severity.OK);
        assertThat(Finding.exitCode(findings)).isEqualTo(1);
        assertThatThrownBy(() -> LockClients.open(goodTarget(), OpenOptions.defaults().namespace(table)))
                .as("what makes it risky rather than unsafe: the client refuses the table").isInstanceOf(LockException.class)
                .hasMessageContaining("no PRIMARY KEY or UNIQUE constraint on lock_key");
    }

    @Test
    void aQueueTableWithoutItsKeyIsRiskyBecauseTheClientRefusesToOpenOnIt() throws SQLException {
        String table = uniqueTable();
        List<String> ddl = ddl(table);
        assertThat(ddl.get(1)).contains("PRIMARY KEY (lock_key, ticket)");
        database().execute(List.of(ddl.get(0), ddl.get(1).replace("PRIMARY KEY (lock_key, ticket)", "CHECK (ticket >= 0)")));
        List<Finding> findings = diagnose(goodTarget(), table);
        Finding queue = finding(findings, QUEUE_TABLE);
        assertThat(queue.severity()).isEqualTo(Severity.RISKY);
        assertThat(queue.why()).contains("refuses to open").contains("both hold the lock");
        assertThat(queue.fix()).contains("ADD PRIMARY KEY (lock_key, ticket)");
        assertThat(finding(findings, LOCK_TABLE).severity()).isEqualTo(Severity.OK);
        assertThat(Finding.exitCode(findings)).isEqualTo(1);
        assertThatThrownBy(() -> LockClients.open(goodTarget(), OpenOptions.defaults().namespace(table)))
                .as("what makes it risky rather than unsafe: the client refuses the table").isInstanceOf(LockException.class)
                .hasMessageContaining("no PRIMARY KEY or UNIQUE constraint on (lock_key, ticket)");
    }

    @Test
    void theIsolationLevelIsOkForTheRecordBecauseTheClientSetsItsOwn() {
        Finding isolation = finding(diagnose(goodTarget(), uniqueTable()), "jdbc.isolation");
        assertThat(isolation.severity()).isEqualTo(Severity.OK);
        assertThat(isolation.observed()).startsWith(defaultIsolation() + " for new sessions");
    }

    @Test
    void theFindingsComeInTheCataloguesOrderAndNameTheVersion() {
        List<Finding> findings = diagnose(goodTarget(), uniqueTable());
        List<String> catalogue = new ArrayList<>(new JdbcBackendProvider().doctorChecks().stream().map(c -> c.id()).toList());
        catalogue.retainAll(findings.stream().map(Finding::check).toList());
        assertThat(findings).extracting(Finding::check).containsExactlyElementsOf(catalogue);
        assertThat(finding(findings, "jdbc.version").observed()).isNotBlank();
    }

    @Test
    void aPoolNoLargerThanTheClientsConnectionsIsRiskyAndOneWithRoomIsOk() {
        Finding full = connectionsWithPool(JdbcLockClient.DEFAULT_CONNECTIONS);
        assertThat(full.severity()).isEqualTo(Severity.RISKY);
        assertThat(full.observed()).contains("DataSource HikariDataSource maximumPoolSize " + JdbcLockClient.DEFAULT_CONNECTIONS);
        assertThat(full.why()).contains("is not above the client's " + JdbcLockClient.DEFAULT_CONNECTIONS + " connections")
                .contains("the application has none");
        assertThat(full.fix()).contains("raise maximumPoolSize above " + JdbcLockClient.DEFAULT_CONNECTIONS);
        assertThat(connectionsWithPool(2).why()).contains("the client itself lacks 2");
        Finding roomy = connectionsWithPool(10);
        assertThat(roomy.severity()).as(roomy.toString()).isEqualTo(Severity.OK);
        assertThat(roomy.observed()).contains("maximumPoolSize 10");
    }

    /** Returns the connections finding with a HikariCP pool of {@code maximum} on the database offered as the client's DataSource. */
    private Finding connectionsWithPool(int maximum) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(goodTarget());
        config.setMaximumPoolSize(maximum);
        config.setMinimumIdle(1);
        try (HikariDataSource pool = new HikariDataSource(config)) {
            return finding(LockClients.diagnose(goodTarget(), OpenOptions.defaults().namespace(uniqueTable()).resource(pool)),
                    CONNECTIONS);
        }
    }

    @Test
    void anUnreachableServerIsUnavailableAndThePasswordIsMasked() {
        String target = unreachableTarget(FreePorts.next());
        assertThatThrownBy(() -> diagnose(target, uniqueTable())).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("***").hasMessageNotContaining("secret");
    }
}
