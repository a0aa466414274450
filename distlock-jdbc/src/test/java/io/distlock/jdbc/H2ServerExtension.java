package io.distlock.jdbc;

import io.distlock.jdbc.testing.H2Server;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** An {@link H2Server}: an H2 TCP server in this JVM on a file database, behind a proxy for pauses. */
final class H2ServerExtension extends DatabaseExtension<H2Server> {

    @Override
    protected H2Server launch() {
        return H2Server.launch();
    }

    @Override
    public Database kind() {
        return Database.H2;
    }

    @Override
    public String schema() {
        return "PUBLIC";
    }

    @Override
    public String now() {
        return "CURRENT_TIMESTAMP(6)";
    }

    @Override
    public String killSession() {
        return "CALL ABORT_SESSION(?)";
    }

    @Override
    public String sessionId() {
        return "SELECT SESSION_ID()";
    }

    @Override
    public List<String> createUser(String user) {
        return List.of("CREATE USER IF NOT EXISTS " + user + " PASSWORD '' ADMIN");
    }

    /** The URL for {@code user}, with a lock timeout longer than any test holds a row lock (H2's own is 2 s; PostgreSQL has none, InnoDB 50 s). */
    @Override
    public String urlFor(String user, int port) {
        return replaceUserAndPort("USER=sa", user, port) + ";LOCK_TIMEOUT=60000";
    }

    @Override
    public String storedName(String user) {
        return user.toUpperCase(Locale.ROOT);
    }

    @Override
    public String sessionsOfUser() {
        return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = ?";
    }

    @Override
    public String blockedSessionsOfUser() {
        return "SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = ? AND BLOCKER_ID IS NOT NULL";
    }

    /** H2 has no server-wide default isolation: each session sets its own. */
    @Override
    public @Nullable List<String> defaultIsolation(String level) {
        return null;
    }

    /** H2 cannot turn a running database read-only for other sessions. */
    @Override
    public @Nullable List<String> readOnly(boolean on, String user) {
        return null;
    }
}
