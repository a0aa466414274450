package io.distlock.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Which entries of a lock's wait queue hold: the rule of each queued kind, for backends that keep one queue of entries
 * per name in an order every client reads alike (ZooKeeper's sequence numbers, etcd's create revisions, a table's
 * tickets). A backend encodes the entries its own way and tells the policy how to read them ({@link Roles}); the rule
 * itself lives here once, so that every backend grants the same entries and the rule is tested once.
 *
 * <p>The rules, over the queue oldest first: a plain or fair lock's oldest entry holds; a reader holds while no writer
 * is older (a reader made by a writer's downgrade holds from its creation, which happens only while its writer holds);
 * a writer holds when it is oldest and no reader downgraded by another writer is left (a writer holds beside the reader
 * it downgraded to); the {@code permits} oldest entries of a semaphore hold.
 */
public enum QueuePolicy {
    /** Plain and fair locks: the oldest entry holds. */
    EXCLUSIVE,
    /** Readers of a read-write lock: hold while no writer is older; downgraded readers always. */
    READ,
    /** Writers of a read-write lock: hold when oldest and no reader downgraded by another writer is left. */
    WRITE,
    /** Permits of a semaphore: the {@code permits} oldest entries hold. */
    PERMIT;

    /**
     * How a backend's queue entries read. A read-write lock's queue holds writers, readers and downgraded readers; the
     * other kinds' queues are read by their position alone.
     *
     * @param <E> the backend's entry (a node name, a key, a row)
     */
    public interface Roles<E> {
        /** Returns whether {@code entry} is a writer of a read-write lock. */
        boolean isWriter(E entry);

        /** Returns whether {@code entry} is a reader made by a writer's downgrade. */
        boolean isDowngradedReader(E entry);

        /**
         * Returns whether the downgraded reader {@code reader} was made by {@code writer}'s downgrade. A backend that
         * cannot tell answers false, which keeps {@code writer} waiting rather than let it hold beside a stranger.
         */
        boolean downgradedBy(E reader, E writer);
    }

    /**
     * The outcome of one entry's turn check: granted, or the entry it waits for.
     *
     * @param granted whether the entry holds
     * @param waitFor the one entry whose leaving may end the wait; null when granted, and for a semaphore's permit,
     *     whose turn may come with any older entry's leaving
     * @param <E> the backend's entry
     */
    public record Turn<E>(boolean granted, @Nullable E waitFor) {}

    /**
     * Returns the entries of {@code queue} (one name's, oldest first) that hold now under this rule.
     *
     * @param permits the semaphore's permits (read by {@link #PERMIT} only)
     */
    public <E> List<E> holders(List<E> queue, int permits, Roles<E> roles) {
        Objects.requireNonNull(roles, "roles");
        return switch (this) {
            case EXCLUSIVE -> queue.isEmpty() ? List.of() : List.of(queue.get(0));
            case READ -> {
                List<E> readers = new ArrayList<>();
                boolean writerOlder = false;
                for (E entry : queue) {
                    if (roles.isWriter(entry)) {
                        writerOlder = true;
                    } else if (!writerOlder || roles.isDowngradedReader(entry)) {
                        readers.add(entry);
                    }
                }
                yield readers;
            }
            case WRITE -> !queue.isEmpty() && roles.isWriter(queue.get(0)) && downgradedByAnother(queue, queue.get(0), roles) == null
                    ? List.of(queue.get(0)) : List.of();
            case PERMIT -> List.copyOf(queue.subList(0, Math.max(0, Math.min(permits, queue.size()))));
        };
    }

    /**
     * Returns every entry of a read-write lock's {@code queue} that holds now, the writer (if one holds) first, then the
     * readers: what a force unlock of the lock ends in one step.
     */
    public static <E> List<E> readWriteHolders(List<E> queue, Roles<E> roles) {
        List<E> holders = new ArrayList<>(WRITE.holders(queue, 0, roles));
        holders.addAll(READ.holders(queue, 0, roles));
        return holders;
    }

    /**
     * Returns whether the entry at {@code position} of {@code queue} (an entry of this rule's kind: a writer for
     * {@link #WRITE}, a reader for {@link #READ}) holds now, and if not, the entry it must outlive. Granted exactly when
     * {@link #holders} names the entry.
     *
     * @throws IndexOutOfBoundsException if {@code position} is not in {@code queue}
     */
    public <E> Turn<E> turn(List<E> queue, int position, int permits, Roles<E> roles) {
        Objects.checkIndex(position, queue.size());
        return switch (this) {
            case EXCLUSIVE -> position == 0 ? new Turn<>(true, null) : new Turn<>(false, queue.get(position - 1));
            case READ -> {
                if (roles.isDowngradedReader(queue.get(position))) {
                    yield new Turn<>(true, null);
                }
                for (int i = position - 1; i >= 0; i--) {
                    if (roles.isWriter(queue.get(i))) {
                        yield new Turn<>(false, queue.get(i));
                    }
                }
                yield new Turn<>(true, null);
            }
            case WRITE -> {
                if (position > 0) {
                    yield new Turn<>(false, queue.get(position - 1));
                }
                E downgraded = downgradedByAnother(queue, queue.get(0), roles);
                yield new Turn<>(downgraded == null, downgraded);
            }
            case PERMIT -> new Turn<>(position < permits, null);
        };
    }

    private static <E> @Nullable E downgradedByAnother(List<E> queue, E writer, Roles<E> roles) {
        for (E entry : queue) {
            if (roles.isDowngradedReader(entry) && !roles.downgradedBy(entry, writer)) {
                return entry;
            }
        }
        return null;
    }
}
