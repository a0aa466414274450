package io.distlock.cli.check;

import io.distlock.checker.Invariant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** The locks {@code distlock check} can check (option {@code --lock}), and what each of them promises. */
enum CheckedLock {
    /**
     * distlock: fencing tokens, the fenced store, and exclusion among valid leases. A lease lock cannot stop a
     * holder paused past its lease from believing it holds (the checker allows those overlaps only when the
     * holder's recorded lease had run out), so its unfenced updates can be lost: lost updates are reported but
     * not claimed.
     */
    DISTLOCK("distlock", EnumSet.of(Invariant.TOKENS, Invariant.FENCED_WRITES, Invariant.OVERLAP, Invariant.LIVENESS)),
    /** SET NX PX + Lua compare-and-delete, retry after 1 ms: promises exclusion and nothing else. */
    NAIVE_SET_NX("naive-set-nx", EnumSet.of(Invariant.OVERLAP, Invariant.LOST_UPDATES, Invariant.LIVENESS)),
    /** SETNX of an expiry time, GETSET to take over an expired lock: promises exclusion and nothing else. */
    NAIVE_GETSET("naive-getset", EnumSet.of(Invariant.OVERLAP, Invariant.LOST_UPDATES, Invariant.LIVENESS));

    private final String id;
    private final Set<Invariant> claims;

    CheckedLock(String id, Set<Invariant> claims) {
        this.id = id;
        this.claims = Set.copyOf(claims);
    }

    /** Returns the name used on the command line. */
    String id() {
        return id;
    }

    /** Returns the invariants this lock promises; only these decide the verdict. */
    Set<Invariant> claims() {
        return claims;
    }

    /** Returns the lock with this name, or throws naming the known ones. */
    static CheckedLock fromId(String id) {
        for (CheckedLock lock : values()) {
            if (lock.id.equals(id)) {
                return lock;
            }
        }
        throw new IllegalArgumentException("unknown lock '" + id + "'; choose one of "
                + Arrays.stream(values()).map(CheckedLock::id).collect(Collectors.joining(", ")));
    }
}
