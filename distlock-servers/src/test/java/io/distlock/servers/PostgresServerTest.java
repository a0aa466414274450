package io.distlock.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** A real PostgreSQL on a free port (as user nobody when the tests run as root): it answers, survives a restart, and dies when killed. */
class PostgresServerTest {
    private static PostgresServer postgres;

    @BeforeAll
    static void launch() {
        postgres = PostgresServer.launch();
    }

    @AfterAll
    static void close() {
        postgres.close();
    }

    private static Connection connect() throws SQLException {
        return DriverManager.getConnection(postgres.jdbcUrl());
    }

    @Test
    void answersOnAFreePortNeverTheDefaultOne() throws Exception {
        assertThat(postgres.port()).isNotEqualTo(5432);
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT current_setting('server_version_num')::int, clock_timestamp() IS NOT NULL")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getInt(1)).isGreaterThanOrEqualTo(170000);
            assertThat(row.getBoolean(2)).isTrue();
        }
    }

    @Test
    void dataSurvivesARestartAndAKill() throws Exception {
        try (Connection connection = connect(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS kept (id int)");
            statement.execute("INSERT INTO kept VALUES (1)");
        }
        postgres.restart();
        postgres.kill();
        assertThat(postgres.isRunning()).isFalse();
        assertThatThrownBy(PostgresServerTest::connect).isInstanceOf(SQLException.class);
        postgres.start();
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM kept")) {
            assertThat(row.next()).isTrue();
            assertThat(row.getInt(1)).isPositive();
        }
    }

    @Test
    void aPausedServerDoesNotAnswerUntilResumed() throws Exception {
        try (Connection connection = connect()) {
            postgres.pause();
            try {
                connection.setNetworkTimeout(Runnable::run, 500);
                assertThatThrownBy(() -> {
                    try (Statement statement = connection.createStatement()) {
                        statement.execute("SELECT 1");
                    }
                }).isInstanceOf(SQLException.class);
            } finally {
                postgres.resume();
            }
        }
        Await.until(Duration.ofSeconds(10), "postgres answers again", () -> {
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                return statement.execute("SELECT 1");
            } catch (SQLException e) {
                return false;
            }
        });
    }
}
