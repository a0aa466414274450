package io.distlock.internal;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;

/**
 * The slots of one client and kind, by lock name, each alive exactly while someone in the process uses it: a
 * thread acquiring or re-entering, an acquisition until its last hold is released, a release
 * subscription until it is dropped. An application that locks one name per order (millions of names)
 * keeps only the slots of the names in use.
 */
final class LockSlots {
    /*
     * The use count of a slot changes only inside ConcurrentHashMap.compute on its name, so "count
     * reaches zero, remove" and "find or create, count one more" are atomic with respect to each other:
     * a thread can never enter a slot that is being removed. Readers that only look (is the lock held by
     * this thread?) use get(): a slot with a holder always has a user, so it cannot vanish under them.
     */
    private final ConcurrentHashMap<String, LockSlot> byName = new ConcurrentHashMap<>();
    private final LockSpace space;
    private final ReleaseSignal.Factory signals;

    LockSlots(LockSpace space, ReleaseSignal.Factory signals) {
        this.space = space;
        this.signals = signals;
    }

    /** Returns the slot of {@code name}, created if needed, counting the caller as a user; pair with {@link LockSlot#leave()}. */
    LockSlot enter(String name) {
        return byName.compute(name, (n, slot) -> {
            LockSlot current = slot != null ? slot : new LockSlot(n, space, this, signals);
            current.users++;
            return current;
        });
    }

    void enter(LockSlot slot) {
        byName.compute(slot.name, (n, current) -> {
            if (current != slot) {
                throw new IllegalStateException("slot of '" + n + "' entered after it was removed");
            }
            current.users++;
            return current;
        });
    }

    void leave(LockSlot slot) {
        LockSlot left = byName.computeIfPresent(slot.name, (n, current) -> {
            if (current != slot) {
                return current;
            }
            return --current.users == 0 ? null : current;
        });
        if (left == null && byName.isEmpty()) {
            space.slotsEmptied(); // outside compute: the space's owner takes its own lock
        }
    }

    /** Returns the slot of {@code name} if someone uses it, without entering it. */
    @Nullable LockSlot find(String name) {
        return byName.get(name);
    }

    /** Returns the slots in use now. */
    List<LockSlot> inUse() {
        return List.copyOf(byName.values());
    }

    /** Returns how many names are in use. */
    int size() {
        return byName.size();
    }
}
