package io.distlock.zookeeper;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * When a node of a lock's queue holds, and what it watches until then: the policy of one kind of lock
 * (Curator's {@code LockInternalsDriver}), over the queue in sequence order.
 */
enum QueueRule {
    /** Plain and fair locks: the first node holds; a waiter watches the node just ahead. */
    EXCLUSIVE(LockNodes.NODE_PREFIX),
    /** Readers: hold while no writer is ahead; watch the nearest writer ahead. */
    READ("read-"),
    /**
     * Writers: hold when first and no reader downgraded by another writer holds (a writer holds beside the reader it
     * downgraded to); watch the node just ahead, or that reader.
     */
    WRITE("write-"),
    /** Semaphore permits: the first {@code permits} nodes hold; a waiter watches the parent's children. */
    PERMIT("permit-");

    /**
     * The prefix of a reader node made by a downgrade: it holds from its creation, while its writer held. The writer's
     * sequence follows it ({@code dread-<writer's sequence>-<owner id>-<sequence>}), so that everyone can tell the
     * writer that holds beside its own reader from a writer that waits for another's.
     */
    static final String DOWNGRADE_PREFIX = "dread-";

    final String prefix;

    QueueRule(String prefix) {
        this.prefix = prefix;
    }

    /** Returns the node prefixes of every kind: what a queue of any kind may hold (for tools that read them all). */
    static List<String> allPrefixes() {
        return List.of(LockNodes.NODE_PREFIX, READ.prefix, WRITE.prefix, PERMIT.prefix, DOWNGRADE_PREFIX);
    }

    /** The outcome of a turn check: granted, or the child to watch (null: watch the parent's children). */
    record Turn(boolean granted, @Nullable String watch) {
        static final Turn GRANTED = new Turn(true, null);
    }

    /** Returns whether the node at {@code position} of {@code queue} holds, and what it watches if not. */
    Turn turn(List<String> queue, int position, int permits) {
        return switch (this) {
            case EXCLUSIVE -> position == 0 ? Turn.GRANTED : new Turn(false, queue.get(position - 1));
            case READ -> {
                for (int i = position - 1; i >= 0; i--) {
                    if (isWriter(queue.get(i))) {
                        yield new Turn(false, queue.get(i));
                    }
                }
                yield Turn.GRANTED;
            }
            case WRITE -> {
                if (position > 0) {
                    yield new Turn(false, queue.get(position - 1));
                }
                String downgraded = queue.stream().filter(child -> downgradedByAnother(child, queue.get(0))).findFirst().orElse(null);
                yield downgraded == null ? Turn.GRANTED : new Turn(false, downgraded);
            }
            case PERMIT -> position < permits ? Turn.GRANTED : new Turn(false, null);
        };
    }

    /** Returns the children of {@code queue} (in order) that hold now. */
    List<String> holders(List<String> queue, int permits) {
        return switch (this) {
            case EXCLUSIVE -> queue.isEmpty() ? List.of() : List.of(queue.get(0));
            case READ -> {
                java.util.List<String> readers = new java.util.ArrayList<>();
                boolean writerAhead = false;
                for (String child : queue) {
                    if (isWriter(child)) {
                        writerAhead = true;
                    } else if (!writerAhead || isDowngradedReader(child)) {
                        readers.add(child);
                    }
                }
                yield readers;
            }
            case WRITE -> !queue.isEmpty() && isWriter(queue.get(0)) && queue.stream().noneMatch(child -> downgradedByAnother(child, queue.get(0)))
                    ? List.of(queue.get(0)) : List.of();
            case PERMIT -> queue.subList(0, Math.min(permits, queue.size()));
        };
    }

    /** Returns whether a waiter watches the parent's children (read together with the queue) rather than one node. */
    boolean watchesChildren() {
        return this == PERMIT;
    }

    /** Returns whether tokens must be taken at the grant (a write to the node) rather than its creation. */
    boolean tokenAtGrant() {
        return this == READ || this == WRITE;
    }

    static boolean isWriter(String child) {
        return LockNodes.bare(child).startsWith(WRITE.prefix);
    }

    static boolean isDowngradedReader(String child) {
        return LockNodes.bare(child).startsWith(DOWNGRADE_PREFIX);
    }

    /** Returns the name prefix of a reader node that {@code writer} (a child's name) downgrades to. */
    static String downgradePrefix(String writer) {
        return DOWNGRADE_PREFIX + LockNodes.sequence(writer) + "-";
    }

    /** Returns whether {@code child} is a reader made by the downgrade of a writer other than {@code writer}. */
    private static boolean downgradedByAnother(String child, String writer) {
        return isDowngradedReader(child) && !LockNodes.bare(child).startsWith(downgradePrefix(writer));
    }
}
