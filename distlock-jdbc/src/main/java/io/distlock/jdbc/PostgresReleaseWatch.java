package io.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Release detection by LISTEN/NOTIFY on PostgreSQL: one connection per client listens on the table's
 * channel; every statement that frees a lock notifies it with the lock's name when it commits.
 */
final class PostgresReleaseWatch extends ReleaseWatch {
    /*
     * The listener connection is opened on the first watch and kept. When it fails, every watcher is told
     * (a release may have gone unheard), and it reconnects with backoff (100 ms doubling to 2 s); watches
     * added meanwhile complete once it listens again, or time out in the engine, which then polls.
     * Only pgjdbc is supported (PGConnection.getNotifications); the client checks for it before choosing
     * this watch. Notifications are sent only on commit and in commit order, so a waiter woken by one
     * finds the row free unless another client took it first.
     */
    private static final Logger log = LoggerFactory.getLogger(PostgresReleaseWatch.class);
    private static final int WAIT_MILLIS = 500;

    private final SqlConnections connections;
    private final String channel;
    private final Thread listener;
    private volatile CompletableFuture<Void> listening = new CompletableFuture<>();
    private volatile @Nullable Connection connection;
    private volatile boolean closed;
    private final AtomicBoolean started = new AtomicBoolean();

    PostgresReleaseWatch(SqlConnections connections, PostgresDialect dialect, String threadPrefix) {
        this.connections = connections;
        this.channel = dialect.channel();
        this.listener = new Thread(this::run, threadPrefix + "-listen");
        listener.setDaemon(true);
    }

    /** Returns whether connections of this source can be unwrapped to pgjdbc's, which delivers notifications. */
    static boolean supports(Connection connection) {
        try {
            return connection.isWrapperFor(PGConnection.class);
        } catch (SQLException | LinkageError e) {
            return false;
        }
    }

    @Override
    protected void watchAdded() {
        if (!closed && started.compareAndSet(false, true)) {
            listener.start();
        }
    }

    @Override
    protected CompletableFuture<Void> inEffect() {
        return listening;
    }

    private void run() {
        long backoff = 100;
        while (!closed) {
            try (Connection open = connections.open()) {
                connection = open;
                try (Statement statement = open.createStatement()) {
                    statement.execute("LISTEN " + channel);
                }
                PGConnection pg = open.unwrap(PGConnection.class);
                listening.complete(null);
                fireAll(); // a release before LISTEN took effect was not heard
                backoff = 100;
                while (!closed) {
                    PGNotification[] notifications = pg.getNotifications(WAIT_MILLIS);
                    if (notifications != null) {
                        for (PGNotification notification : notifications) {
                            fire(notification.getParameter());
                        }
                    }
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                log.debug("LISTEN connection to {} failed; reconnecting in {} ms", connections.describe(), backoff, e);
                if (listening.isDone()) {
                    listening = new CompletableFuture<>();
                }
                fireAll();
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = Math.min(2_000, backoff * 2);
            } finally {
                connection = null;
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        listener.interrupt();
        SqlConnections.closeQuietly(connection);
    }
}
