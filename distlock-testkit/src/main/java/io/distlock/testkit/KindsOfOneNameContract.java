package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockKind;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The contract that {@code getLock(name)}, {@code getFairLock(name)}, {@code getReadWriteLock(name)} and
 * {@code getSemaphore(name, n)} of one name are separate locks, for backends that have two kinds or more (those they have): each can be held
 * while the others are held, each keeps its own state on the server, and releasing one leaves the others held.
 */
public abstract class KindsOfOneNameContract extends ContractSupport {

    /** Runs on backends that have two kinds or more, with the kinds they have. */
    @Override
    protected boolean runsOn(BackendHooks hooks) {
        return hooks.kinds().size() >= 2;
    }

    /** The backend's kinds, in the API's order. */
    private List<LockKind> kinds() {
        return java.util.Arrays.stream(LockKind.values()).filter(hooks().kinds()::contains).toList();
    }

    @Override
    protected boolean lockedInBackend(String name) {
        for (LockKind kind : kinds()) {
            if (hooks().heldInBackend(kind, name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Issue 28 (claims without a test): one thread of one client takes every kind the backend has of one name, each while the
     * others are held; the server shows each held on its own, another client finds each of them taken, and releasing
     * them one by one frees exactly the one released.
     */
    @Test
    void theLockKindsOfOneNameAreSeparateLocks() throws Exception {
        String name = uniqueName();
        LockClient client = newClient();
        LockClient other = newClient();
        assertHeldExactly(name, List.of());
        Map<LockKind, Lease> held = new EnumMap<>(LockKind.class);
        List<LockKind> taken = new ArrayList<>();
        for (LockKind kind : kinds()) {
            Lease lease = tryTake(client, kind, name);
            assertThat(lease).as("%s of '%s' while %s of it are held", kind, name, taken).isNotNull();
            held.put(kind, lease);
            taken.add(kind);
            assertHeldExactly(name, taken);
        }
        for (LockKind kind : kinds()) {
            assertThat(tryTake(other, kind, name)).as("%s of '%s' on another client while this one holds it", kind, name).isNull();
        }
        for (LockKind kind : kinds()) {
            held.remove(kind).close();
            taken.remove(kind);
            assertHeldExactly(name, taken);
        }
        for (LockKind kind : kinds()) {
            Lease again = tryTake(other, kind, name);
            assertThat(again).as("%s of '%s' on another client once released", kind, name).isNotNull();
            again.close();
        }
    }

    /** Returns a lease of {@code kind} taken with one attempt (the write side of a read-write lock; a one-permit semaphore), or null. */
    private static Lease tryTake(LockClient client, LockKind kind, String name) throws InterruptedException {
        return (switch (kind) {
            case LOCK -> client.getLock(name).tryAcquire(Duration.ZERO);
            case FAIR_LOCK -> client.getFairLock(name).tryAcquire(Duration.ZERO);
            case READ_WRITE_LOCK -> client.getReadWriteLock(name).writeLock().tryAcquire(Duration.ZERO);
            case SEMAPHORE -> client.getSemaphore(name, 1).tryAcquire(Duration.ZERO);
        }).orElse(null);
    }

    private void assertHeldExactly(String name, List<LockKind> held) {
        for (LockKind kind : kinds()) {
            assertThat(hooks().heldInBackend(kind, name)).as("server state of the %s of '%s' shows it held (held: %s)", kind, name, held)
                    .isEqualTo(held.contains(kind));
        }
    }
}
