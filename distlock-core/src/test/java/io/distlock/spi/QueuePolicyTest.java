package io.distlock.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The queue rule every queueing backend shares (ZooKeeper, etcd, SQL), tested once: who holds, and that a waiter's turn
 * check agrees with it on every queue.
 */
class QueuePolicyTest {

    /** An entry as a test writes it: W writer, R reader, D reader downgraded by the writer numbered {@code writer}. */
    private record Entry(char role, int id, int writer) {
        @Override
        public String toString() {
            return role == 'D' ? "D" + id + "<" + writer : role + "" + id;
        }
    }

    private static final QueuePolicy.Roles<Entry> ROLES = new QueuePolicy.Roles<>() {
        @Override
        public boolean isWriter(Entry entry) {
            return entry.role() == 'W';
        }

        @Override
        public boolean isDowngradedReader(Entry entry) {
            return entry.role() == 'D';
        }

        @Override
        public boolean downgradedBy(Entry reader, Entry writer) {
            return reader.writer() == writer.id();
        }
    };

    private static Entry w(int id) {
        return new Entry('W', id, 0);
    }

    private static Entry r(int id) {
        return new Entry('R', id, 0);
    }

    private static Entry d(int id, int writer) {
        return new Entry('D', id, writer);
    }

    @Test
    void theOldestEntryHoldsAnExclusiveLockAndEachWaiterWaitsForTheOneAhead() {
        List<Entry> queue = List.of(w(1), w(2), w(3));
        assertThat(QueuePolicy.EXCLUSIVE.holders(queue, 0, ROLES)).containsExactly(w(1));
        assertThat(QueuePolicy.EXCLUSIVE.holders(List.of(), 0, ROLES)).isEmpty();
        assertThat(QueuePolicy.EXCLUSIVE.turn(queue, 2, 0, ROLES)).isEqualTo(new QueuePolicy.Turn<>(false, w(2)));
    }

    @Test
    void readersHoldUntilTheFirstWriterAndALaterReaderWaitsForTheNewestOlderWriter() {
        List<Entry> queue = List.of(r(1), r(2), w(3), r(4), w(5), r(6));
        assertThat(QueuePolicy.READ.holders(queue, 0, ROLES)).containsExactly(r(1), r(2));
        assertThat(QueuePolicy.WRITE.holders(queue, 0, ROLES)).isEmpty();
        assertThat(QueuePolicy.READ.turn(queue, 5, 0, ROLES)).isEqualTo(new QueuePolicy.Turn<>(false, w(5)));
        assertThat(QueuePolicy.WRITE.turn(queue, 2, 0, ROLES)).isEqualTo(new QueuePolicy.Turn<>(false, r(2)));
    }

    @Test
    void aWriterHoldsBesideItsOwnDowngradedReaderButWaitsForAnothersAndAReaderWhoseWriterCannotBeTold() {
        assertThat(QueuePolicy.WRITE.holders(List.of(w(1), d(2, 1), r(3)), 0, ROLES)).containsExactly(w(1));
        assertThat(QueuePolicy.READ.holders(List.of(w(1), d(2, 1), r(3)), 0, ROLES)).containsExactly(d(2, 1));
        // the writer 1 left; its downgraded reader still holds, and writer 3 waits for it
        List<Entry> queue = List.of(d(2, 1), w(3), r(4));
        assertThat(QueuePolicy.WRITE.holders(queue, 0, ROLES)).isEmpty();
        assertThat(QueuePolicy.READ.holders(queue, 0, ROLES)).containsExactly(d(2, 1));
        List<Entry> writerFirst = List.of(w(3), d(2, 1));
        assertThat(QueuePolicy.WRITE.turn(writerFirst, 0, 0, ROLES)).isEqualTo(new QueuePolicy.Turn<>(false, d(2, 1)));
        // a backend that cannot tell whose reader it is answers false: the writer keeps waiting
        QueuePolicy.Roles<Entry> cannotTell = new QueuePolicy.Roles<>() {
            @Override
            public boolean isWriter(Entry entry) {
                return ROLES.isWriter(entry);
            }

            @Override
            public boolean isDowngradedReader(Entry entry) {
                return ROLES.isDowngradedReader(entry);
            }

            @Override
            public boolean downgradedBy(Entry reader, Entry writer) {
                return false;
            }
        };
        assertThat(QueuePolicy.WRITE.holders(List.of(w(1), d(2, 1)), 0, cannotTell)).isEmpty();
    }

    @Test
    void theOldestPermitsHoldASemaphore() {
        List<Entry> queue = List.of(r(1), r(2), r(3));
        assertThat(QueuePolicy.PERMIT.holders(queue, 2, ROLES)).containsExactly(r(1), r(2));
        assertThat(QueuePolicy.PERMIT.holders(queue, 5, ROLES)).containsExactly(r(1), r(2), r(3));
        assertThat(QueuePolicy.PERMIT.turn(queue, 2, 2, ROLES)).isEqualTo(new QueuePolicy.Turn<>(false, null));
        assertThat(QueuePolicy.PERMIT.turn(queue, 1, 2, ROLES)).isEqualTo(new QueuePolicy.Turn<>(true, null));
        assertThatThrownBy(() -> QueuePolicy.PERMIT.turn(queue, 3, 2, ROLES)).isInstanceOf(IndexOutOfBoundsException.class);
    }

    /**
     * On random queues of writers, readers and downgraded readers: a writer never holds beside a reader other than its
     * own downgraded one, and every waiter's turn check says granted exactly when the holders name it.
     */
    @Test
    void onEveryQueueTheTurnAgreesWithTheHoldersAndNoWriterHoldsBesideAStranger() {
        Random random = new Random(30);
        for (int round = 0; round < 20_000; round++) {
            List<Entry> queue = randomQueue(random);
            List<Entry> writers = QueuePolicy.WRITE.holders(queue, 0, ROLES);
            List<Entry> readers = QueuePolicy.READ.holders(queue, 0, ROLES);
            assertThat(writers).as("queue %s", queue).hasSizeLessThanOrEqualTo(1);
            if (!writers.isEmpty()) {
                assertThat(readers).as("readers beside writer in %s", queue).allMatch(reader -> reader.role() == 'D' && reader.writer() == writers.get(0).id());
            }
            int permits = 1 + random.nextInt(3);
            for (int position = 0; position < queue.size(); position++) {
                Entry entry = queue.get(position);
                for (QueuePolicy policy : QueuePolicy.values()) {
                    if ((policy == QueuePolicy.WRITE && entry.role() != 'W') || (policy == QueuePolicy.READ && entry.role() == 'W')) {
                        continue;
                    }
                    QueuePolicy.Turn<Entry> turn = policy.turn(queue, position, permits, ROLES);
                    assertThat(turn.granted()).as("%s turn of %s in %s", policy, entry, queue)
                            .isEqualTo(policy.holders(queue, permits, ROLES).contains(entry));
                    if (!turn.granted() && policy != QueuePolicy.PERMIT) {
                        assertThat(queue).as("%s of %s waits for an entry of the queue", policy, entry).contains(turn.waitFor());
                    }
                }
            }
        }
    }

    private static List<Entry> randomQueue(Random random) {
        List<Entry> queue = new ArrayList<>();
        int size = random.nextInt(7);
        for (int id = 1; id <= size; id++) {
            switch (random.nextInt(3)) {
                case 0 -> queue.add(w(id));
                case 1 -> queue.add(r(id));
                default -> queue.add(d(id, 1 + random.nextInt(size)));
            }
        }
        return queue;
    }
}
