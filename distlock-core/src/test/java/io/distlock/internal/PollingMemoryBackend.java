package io.distlock.internal;

import io.distlock.LockOptions;
import io.distlock.internal.MemoryStore.Hold;
import io.distlock.internal.MemoryStore.Op;
import io.distlock.internal.MemoryStore.Tombstone;
import io.distlock.spi.AcquireResult;
import io.distlock.spi.BatchRenewal;
import io.distlock.spi.LockBackend;
import io.distlock.spi.OwnerCheck;
import io.distlock.spi.PollingAcquire;
import io.distlock.spi.ReleaseSubscription;
import io.distlock.spi.TokenRanges;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/** One client's view of a {@link MemoryStore} that acquires by asking, as the Redis backend does. */
public final class PollingMemoryBackend implements LockBackend, PollingAcquire, TokenRanges, BatchRenewal {
    private final MemoryStore store;
    private final Duration operationTimeout;
    private volatile @Nullable Consumer<LockOptions> optionCheck;
    private volatile boolean closed;

    PollingMemoryBackend(MemoryStore store, Duration operationTimeout) {
        this.store = store;
        this.operationTimeout = operationTimeout;
    }

    /** Makes {@link #checkOptions} run {@code check} (to test option limits). */
    public void checkOptionsWith(Consumer<LockOptions> check) {
        this.optionCheck = check;
    }

    @Override
    public String describe() {
        return "memory";
    }

    @Override
    public Duration operationTimeout() {
        return operationTimeout;
    }

    @Override
    public void checkOptions(LockOptions options) {
        Consumer<LockOptions> check = optionCheck;
        if (check != null) {
            check.accept(options);
        }
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime) {
        return tryAcquire(name, ownerId, leaseTime, 1);
    }

    @Override
    public CompletableFuture<AcquireResult> tryAcquire(String name, String ownerId, Duration leaseTime, int count) {
        return call(Op.ACQUIRE, name, ownerId, () -> {
            Hold hold = store.liveHold(name);
            if (hold != null && !hold.owner.equals(ownerId)) {
                return AcquireResult.busy(Duration.ofNanos(hold.expiresAt - store.now()));
            }
            if (hold != null) {
                hold.expiresAt = store.now() + leaseTime.toNanos();
                return AcquireResult.granted(hold.token);
            }
            Hold granted = new Hold(ownerId, store.reserveTokens(count), store.now() + leaseTime.toNanos());
            store.holds().put(name, granted);
            store.tombstones().remove(name);
            return AcquireResult.grantedRange(granted.token, granted.token + count - 1);
        });
    }

    @Override
    public CompletableFuture<ReleaseSubscription> watchReleases(String name, Runnable onMaybeFree) {
        return call(Op.SUBSCRIBE, name, "-", () -> {
            Runnable unlisten = store.listen(name, onMaybeFree);
            return unlisten::run;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> renew(String name, String ownerId, Duration leaseTime) {
        return call(Op.RENEW, name, ownerId, () -> renewNow(name, ownerId, leaseTime));
    }

    private OwnerCheck renewNow(String name, String ownerId, Duration leaseTime) {
        Hold hold = store.liveHold(name);
        if (hold != null && hold.owner.equals(ownerId)) {
            hold.expiresAt = store.now() + leaseTime.toNanos();
            return OwnerCheck.OWNER;
        }
        return notOwner(name, ownerId, hold);
    }

    private OwnerCheck notOwner(String name, String ownerId, @Nullable Hold hold) {
        if (hold != null) {
            return OwnerCheck.OTHER_OWNER;
        }
        Tombstone tombstone = store.tombstones().get(name);
        return tombstone != null && ownerId.equals(tombstone.forcedFrom()) ? OwnerCheck.FORCE_UNLOCKED : OwnerCheck.MISSING;
    }

    @Override
    public int maxBatchSize() {
        return 50;
    }

    @Override
    public CompletableFuture<List<@Nullable OwnerCheck>> renewAll(List<RenewalRequest> requests) {
        return call(Op.RENEW, requests.size() == 1 ? requests.get(0).name() : "(" + requests.size() + " locks)", "-", () -> {
            List<@Nullable OwnerCheck> found = new ArrayList<>();
            for (RenewalRequest request : requests) {
                found.add(renewNow(request.name(), request.ownerId(), request.leaseTime()));
            }
            return found;
        });
    }

    @Override
    public CompletableFuture<OwnerCheck> release(String name, String ownerId) {
        return call(Op.RELEASE, name, ownerId, () -> {
            Hold hold = store.liveHold(name);
            if (hold != null && hold.owner.equals(ownerId)) {
                store.holds().remove(name);
                store.tombstones().put(name, new Tombstone(ownerId, null));
                store.notifyReleased(name);
                return OwnerCheck.OWNER;
            }
            Tombstone tombstone = store.tombstones().get(name);
            if (hold == null && tombstone != null && ownerId.equals(tombstone.releasedBy())) {
                return OwnerCheck.OWNER; // released already by this owner: a retried request
            }
            return notOwner(name, ownerId, hold);
        });
    }

    @Override
    public CompletableFuture<Boolean> forceRelease(String name) {
        return call(Op.FORCE_RELEASE, name, "-", () -> {
            Hold hold = store.liveHold(name);
            if (hold == null) {
                return false;
            }
            store.holds().remove(name);
            store.tombstones().put(name, new Tombstone(null, hold.owner));
            store.notifyReleased(name);
            return true;
        });
    }

    @Override
    public CompletableFuture<Boolean> isLocked(String name) {
        return call(Op.IS_LOCKED, name, "-", () -> store.liveHold(name) != null);
    }

    @Override
    public void close() {
        closed = true; // the store outlives its clients; this client's calls fail from now on, as a closed connection's do
    }

    private <T> CompletableFuture<T> call(Op op, String name, String owner, java.util.function.Supplier<T> action) {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("this memory backend client was closed"));
        }
        return store.run(op, name, owner, action);
    }
}
