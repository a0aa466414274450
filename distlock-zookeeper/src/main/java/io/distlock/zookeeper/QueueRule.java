package io.distlock.zookeeper;

import io.distlock.spi.QueuePolicy;
import java.util.List;

/**
 * The node names of one kind of lock's queue, read by the rule every queueing backend shares ({@link QueuePolicy}):
 * when a node holds, and what it watches until then, over the queue in sequence order.
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

    /** How a node's name reads to the rule shared by every queueing backend. */
    private static final QueuePolicy.Roles<String> ROLES = new QueuePolicy.Roles<>() {
        @Override
        public boolean isWriter(String child) {
            return QueueRule.isWriter(child);
        }

        @Override
        public boolean isDowngradedReader(String child) {
            return QueueRule.isDowngradedReader(child);
        }

        @Override
        public boolean downgradedBy(String reader, String writer) {
            return LockNodes.bare(reader).startsWith(downgradePrefix(writer));
        }
    };

    final String prefix;
    private final QueuePolicy policy;

    QueueRule(String prefix) {
        this.prefix = prefix;
        this.policy = QueuePolicy.valueOf(name());
    }

    /** Returns the node prefixes of every kind: what a queue of any kind may hold (for tools that read them all). */
    static List<String> allPrefixes() {
        return List.of(LockNodes.NODE_PREFIX, READ.prefix, WRITE.prefix, PERMIT.prefix, DOWNGRADE_PREFIX);
    }

    /** Returns whether the node at {@code position} of {@code queue} holds, and the node it watches if not (null: the parent's children). */
    QueuePolicy.Turn<String> turn(List<String> queue, int position, int permits) {
        return policy.turn(queue, position, permits, ROLES);
    }

    /** Returns the children of {@code queue} (in order) that hold now. */
    List<String> holders(List<String> queue, int permits) {
        return policy.holders(queue, permits, ROLES);
    }

    /** Returns every child of a read-write lock's {@code queue} that holds now: the writer, then the readers. */
    static List<String> readWriteHolders(List<String> queue) {
        return QueuePolicy.readWriteHolders(queue, ROLES);
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
}
