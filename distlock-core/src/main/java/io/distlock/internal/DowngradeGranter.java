package io.distlock.internal;

import io.distlock.LockOptions;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.ReadWriteStorage;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Grants a read hold to the thread that holds the write side of the same read-write lock, at once and
 * atomically ({@link ReadWriteStorage#downgrade}). If the write hold is gone on the backend (lost
 * meanwhile), the reader waits like any other: the slot's own granter takes over.
 */
final class DowngradeGranter implements Granter {
    private static final Logger log = LoggerFactory.getLogger(DowngradeGranter.class);

    private final EngineContext engine;
    private final ReadWriteStorage storage;
    private final Acquisition writing;

    DowngradeGranter(EngineContext engine, ReadWriteStorage storage, Acquisition writing) {
        this.engine = engine;
        this.storage = storage;
        this.writing = writing;
    }

    @Override
    public @Nullable Grant await(LockSlot slot, LockOptions options, long waitNanos) throws InterruptedException {
        String ownerId = engine.ownerIds().next();
        long epoch = engine.session().epoch();
        long sent = engine.clock().nanoTime();
        CompletableFuture<AcquireResult> request = storage.downgrade(slot.name, writing.ownerId, ownerId, options.leaseTime());
        AcquireResult result;
        try {
            result = engine.calls().await(request, "acquire", slot.name);
        } catch (InterruptedException e) {
            releaseWhenKnown(slot, ownerId, request);
            throw e;
        } catch (RuntimeException e) {
            releaseWhenKnown(slot, ownerId, request);
            throw engine.closedOr(e);
        }
        if (result.granted()) {
            return new Grant(ownerId, result.fencingToken(), sent, epoch, options.leaseTime().toNanos());
        }
        log.debug("downgrade of '{}' found the write hold gone; waiting for the read lock like any reader", slot.name);
        return slot.space.acquirer.granter().await(slot, options, waitNanos);
    }

    /** A downgrade the caller stopped waiting for may still have been granted: release it under its own owner id. */
    private static void releaseWhenKnown(LockSlot slot, String ownerId, CompletableFuture<AcquireResult> request) {
        request.whenComplete((result, error) -> {
            if (error == null && (result == null || !result.granted())) {
                return;
            }
            slot.space.backend.release(slot.name, ownerId).whenComplete((released, releaseError) -> {
                if (releaseError != null) {
                    log.debug("could not release an abandoned downgrade of '{}'; it expires with its lease", slot.name, releaseError);
                }
            });
        });
    }
}
