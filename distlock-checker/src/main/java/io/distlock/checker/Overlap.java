package io.distlock.checker;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Holds of different processes that were held together against the lock's rules, as each holder believed
 * it held, and whether the lock's guarantee allows that.
 *
 * @param holds two holds of which at least one is exclusive, or more shared holds than the permit count;
 *     the hold that began last is last
 * @param excuse why the guarantee allows it, or {@link Excuse#NONE}: a violation of mutual exclusion
 * @param fault the fault that excuses it when the excuse is {@link Excuse#LOCK_LOSING_FAULT}, else null
 */
public record Overlap(List<Hold> holds, Excuse excuse, @Nullable Fault fault) {
    /** Why an overlap is allowed. */
    public enum Excuse {
        /** Nothing in the history allows it: mutual exclusion (or the permit count) was violated. */
        NONE("violation"),
        /**
         * When the last holder got the lock, an earlier holder's lease had already run out by that holder's own
         * recorded deadline (or the last holder's had): that holder held past its lease, paused or slow to
         * notice, while its {@code isValid()} was already false. Only fencing protects writes made then.
         */
        PAST_LEASE("an earlier holder was past its lease"),
        /**
         * A fault after which the deployment does not promise to keep its locks (a restart without persistence,
         * a failover without replica acknowledgement) came between the first holder's acquire and the last
         * holder's grant.
         */
        LOCK_LOSING_FAULT("across a fault that loses locks");

        private final String description;

        Excuse(String description) {
            this.description = description;
        }

        /** Returns a few words for reports, e.g. "an earlier holder was past its lease". */
        public String description() {
            return description;
        }
    }

    public Overlap {
        holds = List.copyOf(holds);
        if (holds.size() < 2) {
            throw new IllegalArgumentException("an overlap needs at least two holds, got " + holds.size());
        }
        if ((excuse == Excuse.LOCK_LOSING_FAULT) != (fault != null)) {
            throw new IllegalArgumentException("a fault is given exactly when it is the excuse");
        }
    }

    /** Returns whether this overlap violates the lock's guarantee. */
    public boolean violation() {
        return excuse == Excuse.NONE;
    }

    /** Returns when the holds were first all held: the start of the last one. */
    public long startNanos() {
        return holds.get(holds.size() - 1).startNanos();
    }

    /** Returns when the first of the holds ended. */
    public long endNanos() {
        long end = holds.get(0).endNanos();
        for (Hold hold : holds) {
            end = hold.endNanos() - end < 0 ? hold.endNanos() : end;
        }
        return end;
    }
}
