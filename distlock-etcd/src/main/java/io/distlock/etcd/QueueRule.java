package io.distlock.etcd;

import io.distlock.spi.QueuePolicy;
import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The keys of one kind of lock's queue on etcd, read by the rule every queueing backend shares ({@link QueuePolicy}),
 * over the queue in create-revision order. A key's role is the start of its last segment ({@link #role}), so that one prefix read finds every key of a
 * role (a reader asks only for older writers).
 */
enum QueueRule {
    /** Plain and fair locks: the oldest key holds; a waiter watches the key just ahead. */
    EXCLUSIVE(""),
    /** Readers: hold while no writer is older; a waiter watches the newest older writer. */
    READ("r-"),
    /**
     * Writers: hold when oldest and no reader made by another writer's downgrade is left (a writer holds beside the
     * reader it downgraded to); a waiter watches the key just ahead, or that reader.
     */
    WRITE("w-"),
    /** Semaphore permits: the {@code permits} oldest keys hold; a waiter watches the name's keys for deletions. */
    PERMIT("");

    /**
     * The role of a reader key made by a downgrade: {@code d<writer's create revision, hex>-}. It holds from its
     * creation (made only while its writer held), and writers other than its own wait for it.
     */
    static final String DOWNGRADED = "d";

    /** How a key reads to the rule shared by every queueing backend. */
    private static final QueuePolicy.Roles<KeyValue> ROLES = new QueuePolicy.Roles<>() {
        @Override
        public boolean isWriter(KeyValue key) {
            return role(key).startsWith(WRITE.role);
        }

        @Override
        public boolean isDowngradedReader(KeyValue key) {
            return role(key).startsWith(DOWNGRADED);
        }

        @Override
        public boolean downgradedBy(KeyValue reader, KeyValue writer) {
            return !downgradedByAnother(reader, writer.getCreateRevision());
        }
    };

    /** The start of the last segment of this kind's keys. */
    final String role;
    private final QueuePolicy policy;

    QueueRule(String role) {
        this.role = role;
        this.policy = QueuePolicy.valueOf(name());
    }

    /**
     * Returns whether a grant must write the key to take its fencing token (the grant's revision) rather than use its
     * create revision: readers and writers can be granted in another order than they were created (a downgraded reader
     * is created after the writers that wait for it), and tokens must follow the grants.
     */
    boolean tokenAtGrant() {
        return this == READ || this == WRITE;
    }

    /** Returns the keys of {@code queue} (oldest first, every role of one name) that hold now. */
    List<KeyValue> holders(List<KeyValue> queue, int permits) {
        return policy.holders(queue, permits, ROLES);
    }

    /** Returns every key of a read-write lock's {@code queue} that holds now: the writer, then the readers. */
    static List<KeyValue> readWriteHolders(List<KeyValue> queue) {
        return QueuePolicy.readWriteHolders(queue, ROLES);
    }

    /** Returns whether {@code key} is a reader made by the downgrade of a writer other than the one created at {@code writer}. */
    static boolean downgradedByAnother(KeyValue key, long writer) {
        String role = role(key);
        if (!role.startsWith(DOWNGRADED)) {
            return false;
        }
        int dash = role.indexOf('-');
        try {
            return dash < 2 || Long.parseLong(role.substring(1, dash), 16) != writer;
        } catch (NumberFormatException notOurs) {
            return true; // a reader all the same: keep writers out rather than guess
        }
    }

    /** Returns the last segment of a queue key: its role, session lease and owner id. */
    static String role(KeyValue key) {
        String text = key.getKey().toString(StandardCharsets.UTF_8);
        return text.substring(text.lastIndexOf('/') + 1);
    }
}
