package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The contract of backends whose locks are bound to a client session as well as a lease (ZooKeeper,
 * etcd): everything of {@link LeaseLockContract}, and what the session adds — its expiry ends every
 * lock of the client at once, tells the holders, and hands each lock on with a larger token.
 */
public abstract class SessionLockContract extends LeaseLockContract {

    /** Expires the backend session of {@code client} as the server would (e.g. ZooKeeper's injected expiry). */
    protected abstract void expireSession(LockClient client);

    /** The lease's deadline or the session's suspension, whichever comes first. */
    @Override
    protected Set<Reason> reasonsWhenTheServerStopsAnswering() {
        return Set.of(Reason.EXPIRED, Reason.SESSION_LOST);
    }

    @Test
    void theHoldersSessionExpiryEndsItsLockTellsItAndHandsTheLockOn() throws Exception {
        String name = uniqueName();
        LockClient holderClient = newClient();
        DistributedLock holder = lockOf(holderClient, name);
        holder.lock();
        Lease held = holder.heldLease();
        CompletableFuture<LeaseLostException> lost = new CompletableFuture<>();
        held.onLost(lost::complete);
        DistributedLock waiterLock = lockOf(newClientWithoutPolling(), name);
        Future<Optional<Lease>> waiter = queuedWaiter(waiterLock, SOON);

        expireSession(holderClient);

        assertThat(lost.get(SOON.toSeconds(), TimeUnit.SECONDS).reason()).isEqualTo(Reason.SESSION_LOST);
        assertThat(held.isValid()).isFalse();
        Optional<Lease> next = waiter.get(SOON.toSeconds() + 10, TimeUnit.SECONDS);
        assertThat(next).as("the waiter got the lock the expired session held").isPresent();
        assertThat(next.get().fencingToken()).isGreaterThan(held.fencingToken());
        assertThatThrownBy(holder::unlock).isInstanceOf(LeaseLostException.class);
        assertLocked(name);
        next.get().close();
        assertUnlocked(name);
    }
}
