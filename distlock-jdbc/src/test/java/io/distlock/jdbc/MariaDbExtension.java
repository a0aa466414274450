package io.distlock.jdbc;

import io.distlock.servers.MariaDbServer;
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

    @Override
    public String blockedSessionsOfUser() {
        return "SELECT COUNT(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p ON p.ID = t.trx_mysql_thread_id"
                + " WHERE p.USER = ? AND t.trx_state = 'LOCK WAIT'";
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
