package io.distlock.testkit;

import io.distlock.LockClient;
import io.distlock.LockKind;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * What one backend, on one deployment, supplies to the contract: written once, read by every tier of
 * {@link BackendContract}. The required hooks say how to make clients, where the servers are and how the backend's
 * own state (read directly, not through distlock) shows a lock; the rest are capabilities with the defaults of a
 * lease backend that has no sessions, no inspector and only the plain lock. A tier the backend cannot run is
 * declared here (by {@link #kinds()}, {@link #hasSessions()}, {@link #hasInspector()}, {@link #registryTarget()}),
 * never by an empty override in a test class.
 */
public abstract class BackendHooks {

    /** Returns the factory class of the backend's clients (public, no-argument constructor: holders run in other JVMs). */
    public abstract Class<? extends LockClientFactory> factoryClass();

    /** Returns the servers under test: usually the deployment extension the test class registers. */
    public abstract TestDeployment deployment();

    /** Returns the kinds the backend's clients have; the tiers of every other kind are skipped, saying so. */
    public abstract Set<LockKind> kinds();

    /**
     * Returns whether the backend's own state shows a lock of this kind and name held by someone: for a read-write
     * lock, by a reader or a writer; for a semaphore, one permit or more. A waiting entry does not count.
     */
    public abstract boolean heldInBackend(LockKind kind, String name);

    /**
     * Returns whether the backend's own state shows every trace of a holder of this lock gone. The opposite of
     * {@link #heldInBackend} unless "held" needs a quorum: RedLock is free only when no node holds it.
     */
    public boolean freeInBackend(LockKind kind, String name) {
        return !heldInBackend(kind, name);
    }

    /** Returns whether a writer holds the read-write lock of this name (readers do not count). */
    public boolean writeHeldInBackend(String name) {
        return heldInBackend(LockKind.READ_WRITE_LOCK, name);
    }

    /**
     * Returns the fencing token the backend's own state remembers last for this lock (held or released), read
     * directly; empty if the backend keeps no such record (ZooKeeper deletes its nodes). Shows that a request the
     * caller gave up on really ran on the server.
     */
    public OptionalLong lastTokenInBackend(LockKind kind, String name) {
        return OptionalLong.empty();
    }

    /**
     * Returns the keys, nodes or rows the servers still keep that carry this lock name, whatever the kind, described
     * for a failure message: empty once every client that used the name is closed and every lease of it has ended.
     * Checked after each contract test (state validation, issue 29).
     */
    public abstract List<String> leftoversInBackend(String name);

    /**
     * Returns how many requests the servers have answered so far, from their own counters; empty where the
     * deployment has none. Lets a test show that a waiter makes no calls while it waits.
     */
    public OptionalLong serverCalls() {
        return OptionalLong.empty();
    }

    /** Returns whether the plain lock grants waiters of different clients in arrival order (ZooKeeper's and etcd's are queues). */
    public boolean plainLockIsFair() {
        return false;
    }

    /**
     * Returns whether a force-unlocked holder is told FORCE_UNLOCKED rather than only SERVER_LOST_LOCK. ZooKeeper and
     * etcd cannot tell a deleted node or key from an expired one.
     */
    public boolean tellsForceUnlocks() {
        return true;
    }

    /** Returns a lease longer than any wait of the tests, within what the backend allows (a session caps it). */
    public Duration longLease() {
        return Duration.ofSeconds(120);
    }

    /** Returns the shortest lease the tests use: short, but one the backend accepts (RedLock needs ten node timeouts). */
    public Duration shortLease() {
        return Duration.ofMillis(500);
    }

    /** Returns whether locks are bound to a client session as well as a lease (ZooKeeper, etcd); see {@link #expireSession}. */
    public boolean hasSessions() {
        return false;
    }

    /**
     * Expires the backend session of {@code client} as the server would.
     *
     * @throws UnsupportedOperationException unless {@link #hasSessions()}
     */
    public void expireSession(LockClient client) {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " has no sessions");
    }

    /**
     * Returns whether a lock stays held on the server without renewals until its last lease runs out, so that
     * {@link io.distlock.Lease#expireAfter} can leave it held (Redis, SQL); false where it cannot and changes nothing
     * (session-bound ZooKeeper and etcd; RedLock).
     */
    public boolean keepsLocksWithoutRenewals() {
        return false;
    }

    /** Returns whether the backend's clients have an inspector (the {@link LockInspectorContract} tier runs then). */
    public boolean hasInspector() {
        return false;
    }

    /** Returns the id of the backend's provider in the registry. */
    public abstract String providerId();

    /**
     * Returns a target URI, in the registry's form, of the servers under test; empty where the registry cannot open
     * this deployment (the {@link BackendProviderContract} tier is skipped then).
     */
    public Optional<String> registryTarget() {
        return Optional.of(deployment().target());
    }

    @Override
    public String toString() {
        return getClass().getSimpleName();
    }
}
