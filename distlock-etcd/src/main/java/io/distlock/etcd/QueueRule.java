package io.distlock.etcd;

import io.etcd.jetcd.KeyValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Which keys of a lock's queue hold: the policy of one kind of lock on etcd, over the queue in create-revision
 * order. A key's role is the start of its last segment ({@link #role}), so that one prefix read finds every key of a
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

    /** The start of the last segment of this kind's keys. */
    final String role;

    QueueRule(String role) {
        this.role = role;
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
        return switch (this) {
            case EXCLUSIVE -> queue.isEmpty() ? List.of() : List.of(queue.get(0));
            case READ -> {
                List<KeyValue> readers = new ArrayList<>();
                boolean writerAhead = false;
                for (KeyValue key : queue) {
                    String role = role(key);
                    if (role.startsWith(WRITE.role)) {
                        writerAhead = true;
                    } else if (role.startsWith(DOWNGRADED) || !writerAhead) {
                        readers.add(key);
                    }
                }
                yield readers;
            }
            case WRITE -> {
                if (queue.isEmpty() || !role(queue.get(0)).startsWith(WRITE.role)) {
                    yield List.of();
                }
                long writer = queue.get(0).getCreateRevision();
                yield queue.stream().anyMatch(key -> downgradedByAnother(key, writer)) ? List.of() : List.of(queue.get(0));
            }
            case PERMIT -> queue.subList(0, Math.min(permits, queue.size()));
        };
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
