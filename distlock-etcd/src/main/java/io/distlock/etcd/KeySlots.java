package io.distlock.etcd;

import java.util.BitSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The numbers of this client's queue keys, per lock name and role: a key is {@code <lease>-<client>-<number>}, and a
 * number is given again once the key it named is known to be gone. etcd keeps every deleted key in its index until a
 * compaction, and a join's read of the name's oldest key walks all of them: a key per acquisition made each acquire of
 * a busy name slower, without bound (benchmarks.md, "the cost of a name's history"). With numbers reused, a name has
 * as many keys as the client ever had waiters on it at once.
 *
 * <p>A number is in use from the join that takes it until its key is known gone: a release or leave that etcd
 * answered, a renewal that found the key or its session gone, the last background delete of a key whose create was
 * not answered. Until then no join of this client can make a key of that name. A join that finds the key there all
 * the same (a create that landed after its deletes) does not take it as its own: only a retry takes a key it finds, and
 * only one whose value is its own join's exactly (owner id and join number); see {@code EtcdLockBackend.join}.
 * A name's entry goes when its last number is given back: no state per name is left behind.
 */
final class KeySlots {
    private final ConcurrentHashMap<String, BitSet> inUse = new ConcurrentHashMap<>();

    /** A number in use in one space (a lock name and role); given back once. */
    static final class Slot {
        private final String space;
        private final int number;
        private final AtomicBoolean returned = new AtomicBoolean();

        private Slot(String space, int number) {
            this.space = space;
            this.number = number;
        }

        int number() {
            return number;
        }

        @Override
        public String toString() {
            return space + "#" + number;
        }
    }

    /** Takes the lowest number not in use in {@code space}. */
    Slot take(String space) {
        int[] taken = new int[1];
        inUse.compute(space, (key, numbers) -> {
            BitSet set = numbers == null ? new BitSet() : numbers;
            taken[0] = set.nextClearBit(0);
            set.set(taken[0]);
            return set;
        });
        return new Slot(space, taken[0]);
    }

    /** Gives {@code slot}'s number back; a second call for the same slot does nothing. Null: a key without a number. */
    void giveBack(KeySlots.@org.jspecify.annotations.Nullable Slot slot) {
        if (slot == null || !slot.returned.compareAndSet(false, true)) {
            return;
        }
        inUse.computeIfPresent(slot.space, (key, numbers) -> {
            numbers.clear(slot.number);
            return numbers.isEmpty() ? null : numbers;
        });
    }

    /** Returns how many spaces have a number in use (for the client's state counts and tests). */
    int spaces() {
        return inUse.size();
    }
}
