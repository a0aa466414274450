package io.distlock.jdbc;

import io.distlock.spi.AcquireResult;
import io.distlock.spi.LockBackend;
import io.distlock.spi.ReadWriteStorage;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * Read-write locks on SQL: readers' ({@code R}), writers' ({@code W}) and downgraded readers' ({@code D}) rows in one
 * queue per name (see {@link SqlQueue}). A downgrade inserts a {@code D} row naming its writer's ticket, in one
 * transaction under the name's counter lock that first checks the writer's row is live and granted: it holds from
 * its creation and keeps other writers out until it is released; its own writer still holds beside it.
 */
final class SqlReadWrite implements ReadWriteStorage {
    private final SqlQueue readers;
    private final SqlQueue writers;

    SqlReadWrite(SqlQueue readers, SqlQueue writers) {
        this.readers = readers;
        this.writers = writers;
    }

    @Override
    public LockBackend readers() {
        return readers;
    }

    @Override
    public LockBackend writers() {
        return writers;
    }

    /** One transaction ends the writer and every reader that hold (see {@code SqlQueue.endHolders}). */
    @Override
    public CompletableFuture<Integer> forceReleaseAll(String name) {
        return readers.endHolders(name, SqlQueue.Rule::readWriteHolders);
    }

    @Override
    public CompletableFuture<AcquireResult> downgrade(String name, String writerOwnerId, String readerOwnerId, Duration leaseTime) {
        return readers.connections().submit("acquire", name, connection -> SqlQueue.inTransaction(connection, () -> {
            byte[] key = readers.key(name);
            readers.nextNumber(connection, key, name); // the counter's lock: no grant of the name runs until we commit
            long writer;
            try (PreparedStatement select = connection.prepareStatement("SELECT ticket FROM " + readers.dialect().queueTable()
                    + " WHERE lock_key = ? AND owner = ? AND lock_role = 'W' AND fence > 0 AND expires_at > " + readers.dialect().now())) {
                select.setBytes(1, key);
                select.setString(2, writerOwnerId);
                try (ResultSet row = select.executeQuery()) {
                    if (!row.next()) {
                        return AcquireResult.busy(Duration.ZERO); // the writer no longer holds: refused, nothing made
                    }
                    writer = row.getLong(1);
                }
            }
            SqlQueue.Joined joined = readers.joinInTransaction(connection, name, readerOwnerId, writer, leaseTime.toMillis(),
                    SqlQueue.Rule.DOWNGRADED);
            return AcquireResult.granted(joined.token());
        }), (connection, late) -> {
            if (late.granted()) {
                readers.deleteOwner(connection, name, readerOwnerId); // the caller gave up before this grant arrived
            }
        });
    }
}
