package io.distlock.jdbc;

import io.distlock.jdbc.testing.PostgresServer;
import java.util.List;

/** One real PostgreSQL server for a test class (as user nobody when the tests run as root). */
final class PostgresExtension extends DatabaseExtension<PostgresServer> {

    @Override
    protected PostgresServer launch() {
        return PostgresServer.launch();
    }

    @Override
    public Database kind() {
        return Database.POSTGRESQL;
    }

    @Override
    public String schema() {
        return "public";
    }

    @Override
    public String now() {
        return "clock_timestamp()";
    }

    @Override
    public String killSession() {
        return "SELECT pg_terminate_backend(?)";
    }

    @Override
    public String sessionId() {
        return "SELECT pg_backend_pid()";
    }

    @Override
    public List<String> createUser(String user) {
        // a superuser: the lock statements need no more than SELECT, INSERT, UPDATE, but it keeps the test short
        return List.of("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + user + "') THEN CREATE ROLE " + user
                + " LOGIN SUPERUSER; END IF; END $$");
    }

    @Override
    public String urlFor(String user, int port) {
        return replaceUserAndPort("user=postgres", user, port);
    }

    @Override
    public String sessionsOfUser() {
        return "SELECT count(*) FROM pg_stat_activity WHERE usename = ?";
    }

    @Override
    public String blockedSessionsOfUser() {
        return "SELECT count(*) FROM pg_stat_activity WHERE usename = ? AND wait_event_type = 'Lock'";
    }

    @Override
    public List<String> defaultIsolation(String level) {
        return List.of(level.isEmpty() ? "ALTER DATABASE postgres RESET default_transaction_isolation"
                : "ALTER DATABASE postgres SET default_transaction_isolation = '" + level.toLowerCase(java.util.Locale.ROOT) + "'");
    }

    /**
     * Read-only as a failover to a read-only server looks to a client: every new session of the database
     * defaults to read-only transactions, and the user's sessions end (they reconnect into read-only ones).
     * Writable again: the default is reset; sessions opened meanwhile keep the read-only default they got.
     */
    @Override
    public List<String> readOnly(boolean on, String user) {
        if (on) {
            return List.of("ALTER DATABASE postgres SET default_transaction_read_only = on",
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + user + "'");
        }
        // this session may itself have started read-only: override that for it first
        return List.of("SET default_transaction_read_only = off", "ALTER DATABASE postgres RESET default_transaction_read_only");
    }
}
