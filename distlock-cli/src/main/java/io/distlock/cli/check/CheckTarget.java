package io.distlock.cli.check;

import io.distlock.checker.Invariant;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import java.util.stream.Collectors;

/** The locks {@code distlock check} can test, and what each of them promises. */
enum CheckTarget {
    /**
     * distlock: fencing tokens and the fenced store are the guarantee; a lease lock cannot promise
     * exclusion to a holder that is paused past its lease, so overlap and lost unfenced updates are
     * reported but not claimed.
     */
    DISTLOCK("distlock", EnumSet.of(Invariant.TOKENS, Invariant.FENCED_WRITES, Invariant.LIVENESS)),
    /** SET NX PX + Lua compare-and-delete, retry after 1 ms: promises exclusion and nothing else. */
    NAIVE_SET_NX("naive-set-nx", EnumSet.of(Invariant.OVERLAP, Invariant.LOST_UPDATES, Invariant.LIVENESS)),
    /** SETNX of an expiry time, GETSET to take over an expired lock: promises exclusion and nothing else. */
    NAIVE_GETSET("naive-getset", EnumSet.of(Invariant.OVERLAP, Invariant.LOST_UPDATES, Invariant.LIVENESS));

    private final String id;
    private final Set<Invariant> claims;

    CheckTarget(String id, Set<Invariant> claims) {
        this.id = id;
        this.claims = Set.copyOf(claims);
    }

    String id() {
        return id;
    }

    Set<Invariant> claims() {
        return claims;
    }

    static CheckTarget fromId(String id) {
        for (CheckTarget target : values()) {
            if (target.id.equals(id)) {
                return target;
            }
        }
        throw new IllegalArgumentException("unknown lock '" + id + "'; choose one of "
                + Arrays.stream(values()).map(CheckTarget::id).collect(Collectors.joining(", ")));
    }
}
