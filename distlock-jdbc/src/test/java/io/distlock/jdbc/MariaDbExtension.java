package io.distlock.jdbc;

import io.distlock.jdbc.testing.MariaDbServer;
import java.util.List;

/** One real MariaDB server for a test class. */
final class MariaDbExtension extends DatabaseExtension<MariaDbServer> {

    @Override
    protected MariaDbServer launch() {
        return MariaDbServer.launch();
    }

    @Override
    public Database kind() {
        return Database.MYSQL;
    }

    @Override
    public String schema() {
        return "distlock";
    }

    @Override
    public String now() {
        return "UTC_TIMESTAMP(6)";
    }

    @Override
    public String killSession() {
        return "KILL ?";
    }

    @Override
    public String sessionId() {
        return "SELECT CONNECTION_ID()";
    }

    /** A user with every right on the test database and none on the server (so {@code read_only} applies to it, unlike to root). */
    @Override
    public List<String> createUser(String user) {
        return List.of("CREATE USER IF NOT EXISTS '" + user + "'@'%'", "GRANT ALL ON distlock.* TO '" + user + "'@'%'");
    }

    @Override
    public String urlFor(String user, int port) {
        return replaceUserAndPort("user=root", user, port);
    }

    @Override
    public String sessionsOfUser() {
        return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ?";
    }

    /**
     * Counts the user's UPDATEs that have run for over 200 ms (one indexed row takes microseconds: they wait
     * for a row lock). Not INNODB_TRX's 'LOCK WAIT': that table is a cache InnoDB refreshes only when it
     * was not read for 100 ms, so a test that polls it more often can read a stale one for ever.
     */
    @Override
    public String blockedSessionsOfUser() {
        return "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE USER = ? AND COMMAND = 'Query' AND INFO LIKE 'UPDATE %' AND TIME_MS > 200";
    }

    @Override
    public List<String> defaultIsolation(String level) {
        return List.of("SET GLOBAL TRANSACTION ISOLATION LEVEL " + (level.isEmpty() ? "REPEATABLE READ" : level));
    }

    @Override
    public List<String> readOnly(boolean on, String user) {
        return List.of("SET GLOBAL read_only = " + (on ? 1 : 0));
    }
}
