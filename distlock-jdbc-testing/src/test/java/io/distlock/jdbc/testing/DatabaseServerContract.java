package io.distlock.jdbc.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.servers.Await;
import io.distlock.servers.BackendControl;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What every database server of the testkit must do: answer on a free port, keep its data across a restart and a kill, freeze when paused. */
abstract class DatabaseServerContract {

    /** Returns the running server. */
    protected abstract BackendControl server();

    /** Returns its JDBC URL. */
    protected abstract String jdbcUrl();

    /** Returns its port. */
    protected abstract int port();

    /** Returns the machine's own server port that must never be used. */
    protected abstract int defaultPort();

    /** Returns whether the server process runs. */
    protected abstract boolean isRunning();

    /** Returns a query whose single boolean column says the server is the expected version. */
    protected abstract String versionCheck();

    private Connection connect() throws SQLException {
        return DriverManager.getConnection(jdbcUrl());
    }

    @Test
    void answersOnAFreePortNeverTheDefaultOne() throws Exception {
        assertThat(port()).isNotEqualTo(defaultPort());
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(versionCheck())) {
            assertThat(row.next()).isTrue();
            assertThat(row.getBoolean(1)).as(versionCheck()).isTrue();
        }
    }

    @Test
    void dataSurvivesARestartAndAKill() throws Exception {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS kept (id int)");
            statement.execute("INSERT INTO kept VALUES (1)");
        }
        server().restart();
        server().kill();
        assertThat(isRunning()).isFalse();
        assertThatThrownBy(this::connect).isInstanceOf(SQLException.class);
        server().start();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM kept")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getInt(1)).isPositive();
        }
    }

    @Test
    void aPausedServerDoesNotAnswerUntilResumed() throws Exception {
        try (Connection connection = connect()) {
            server().pause();
            try {
                connection.setNetworkTimeout(Runnable::run, 500);
                assertThatThrownBy(() -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SELECT 1");
                    }
                }).isInstanceOf(SQLException.class);
            } finally {
                server().resume();
            }
        }
        Await.until(Duration.ofSeconds(10), "the server answers again", () -> {
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                return statement.execute("SELECT 1");
            } catch (SQLException e) {
                return false;
            }
        });
    }
}
