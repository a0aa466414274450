package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockException;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.servers.Await;
import io.distlock.spi.LockEngine;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.PutOption;
import io.grpc.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Queue keys are named {@code <lease>-<client>-<number>}, the number reused once the key is gone ({@link KeySlots}):
 * etcd keeps each deleted key in its index until a compaction, and a key per acquisition made each acquire of a busy
 * name read past all of them. Each test fails without what it names.
 */
class EtcdKeyReuseTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    @RegisterExtension
    static final EtcdTestbed testbed = new EtcdTestbed(etcd);

    private EtcdLockClient client() {
        return testbed.closeAfterTest(EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(EtcdClientFactory.SESSION_TTL)
                .operationTimeout(Duration.ofSeconds(5)).build());
    }

    /** A client whose jetcd calls go through {@code faults}. */
    private EtcdLockClient client(RpcFaults faults, Duration operationTimeout) {
        io.etcd.jetcd.Client jetcd = testbed.closeAfterTest(io.etcd.jetcd.Client.builder().endpoints(etcd.target().split(","))
                .interceptor(faults).build());
        return testbed.closeAfterTest(EtcdLockClient.builder().client(jetcd).sessionTtl(EtcdClientFactory.SESSION_TTL)
                .operationTimeout(operationTimeout).build());
    }

    /** Holds the next join's first try in the network while the client is told the connection broke (so it retries). */
    private static RpcFaults.Held holdTheFirstJoinTry(RpcFaults faults) {
        return faults.holdCallButFailItNow(0, Status.UNAVAILABLE.withDescription("the connection broke (RpcFaults)"), RpcFaults.TXN);
    }

    /** Waits until {@code client} has given back the number of every key it made. */
    private static void awaitEveryNumberBack(EtcdLockClient client) {
        Await.until(SOON, "every number is back", () -> LockEngine.state(client, true).orElseThrow().backend().get("names with numbered keys") == 0);
    }

    /** Acquires and releases {@code lock} once; returns the name of the key it held by (the name its next join makes again). */
    private String keyOfAnAcquisition(EtcdLockClient client, String lock) throws Exception {
        try (Lease first = client.getLock(lock).acquire(SOON)) {
            return RawEtcd.keyText(testbed.raw().queue(lock).get(0));
        }
    }

    /** Puts a key named {@code name}, made by no owner of the client, on its session (a create that landed after its deletes); returns its revision. */
    private long putLeftOver(EtcdLockClient client, String name) throws Exception {
        return testbed.raw().client().getKVClient().put(ByteSequence.from(name, StandardCharsets.UTF_8), ByteSequence.from("left over",
                StandardCharsets.UTF_8), PutOption.builder().withLeaseId(client.sessionLease()).build()).get(10, TimeUnit.SECONDS)
                .getHeader().getRevision();
    }

    /** Fails with a key per acquisition: twenty acquisitions made twenty keys. */
    @Test
    void aNameAcquiredAgainAndAgainKeepsOneKeyAndItsTokensStillGrow() throws Exception {
        EtcdLockClient client = client();
        Set<String> keys = new LinkedHashSet<>();
        long last = 0;
        for (int i = 0; i < 20; i++) {
            try (Lease lease = client.getLock("again").acquire(SOON)) {
                List<KeyValue> queue = testbed.raw().queue("again");
                assertThat(queue).hasSize(1);
                keys.add(RawEtcd.keyText(queue.get(0)));
                assertThat(lease.fencingToken()).as("token of acquisition %d", i).isGreaterThan(last).isEqualTo(queue.get(0).getCreateRevision());
                last = lease.fencingToken();
            }
        }
        assertThat(keys).as("the names of the keys of twenty acquisitions").hasSize(1);
        assertThat(keys.iterator().next()).endsWith("-0");
        assertThat(testbed.raw().queue("again")).isEmpty();
        assertThat(LockEngine.state(client, true).orElseThrow().backend()).containsEntry("names with numbered keys", 0);
    }

    /**
     * Fails if a release is answered before its key's number is back: a caller that acquires the name again the moment
     * its close returns (another thread, on a busy machine) finds the number in use and makes a second key. A callback
     * on the release's answer sees every number back.
     */
    @Test
    void aReleaseIsAnsweredOnlyOnceItsNumberIsBack() throws Exception {
        EtcdLockBackend backend = client().backend();
        for (int i = 0; i < 5; i++) {
            String owner = "answer-" + i;
            backend.enqueue("answered", owner, Duration.ofSeconds(5)).get(10, TimeUnit.SECONDS);
            assertThat(backend.stateCounts()).containsEntry("names with numbered keys", 1);
            int numbersInUseAtTheAnswer = backend.release("answered", owner).thenApply(released -> backend.stateCounts()
                    .get("names with numbered keys")).get(10, TimeUnit.SECONDS);
            assertThat(numbersInUseAtTheAnswer).as("names with a number in use when release %d was answered", i).isZero();
        }
        assertThat(testbed.raw().queue("answered")).isEmpty();
    }

    /** Fails with one number per name and client: two permits held by one client would share a key. */
    @Test
    void permitsOfOneClientHeldAtOnceHaveKeysOfTheirOwnAndTheNumbersComeBack() throws Exception {
        EtcdLockClient client = client();
        for (int round = 0; round < 2; round++) {
            List<Lease> permits = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                permits.add(client.getSemaphore("shared", 3).acquire(SOON));
            }
            List<KeyValue> queue = testbed.raw().semaphoreQueue("shared");
            assertThat(queue).extracting(RawEtcd::keyText).as("round %d", round).hasSize(3)
                    .allMatch(key -> key.endsWith("-0") || key.endsWith("-1") || key.endsWith("-2"));
            for (Lease permit : permits) {
                permit.close();
            }
            assertThat(testbed.raw().semaphoreQueue("shared")).isEmpty();
        }
    }

    /**
     * Guard: a join that finds the key of its number there before it sent anything does not take it as its own. Such a
     * key is left over (a create that landed after its deletes); its create revision is older than tokens granted since,
     * perhaps a lost holder's. Here the key the next acquire would make is put by hand, on the client's own session: the
     * acquire must make a key of its own, with a larger token, and delete the one left over.
     */
    @Test
    void aKeyLeftOverUnderTheNumberAJoinTakesIsNotTakenAsItsOwn() throws Exception {
        EtcdLockClient client = client();
        String name = keyOfAnAcquisition(client, "left-over");
        long stale = putLeftOver(client, name);
        try (Lease lease = client.getLock("left-over").acquire(SOON)) {
            assertThat(lease.fencingToken()).as("not the left-over key's create revision").isGreaterThan(stale);
            List<KeyValue> queue = testbed.raw().queue("left-over");
            // the left-over key is deleted: one key, the holder's (under the same name again if its number came back first)
            assertThat(queue).hasSize(1);
            assertThat(queue.get(0).getCreateRevision()).isEqualTo(lease.fencingToken());
        }
        assertThat(testbed.raw().queue("left-over")).isEmpty();
    }

    /**
     * Guard: a retried join takes the key it finds only if the key names its owner id. Here the first try of an acquire
     * meets a key put by hand under its number just before it (on the client's own session) and its answer is lost; the
     * retry finds that key. Without the owner check it takes it as the key its first try made, and holds with that key's
     * create revision as its token, older than tokens granted since.
     */
    @Test
    void aRetriedJoinDoesNotTakeAKeyItsFirstTryDidNotMake() throws Exception {
        RpcFaults faults = new RpcFaults();
        EtcdLockClient client = client(faults, Duration.ofSeconds(5));
        String name = keyOfAnAcquisition(client, "retried");
        long[] stale = new long[1];
        faults.beforeNextCall(RpcFaults.TXN, () -> {
            try {
                stale[0] = putLeftOver(client, name);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        faults.loseNextAnswer(RpcFaults.TXN);
        try (Lease lease = client.getLock("retried").acquire(SOON)) {
            assertThat(stale[0]).as("the key was put before the first try").isPositive();
            assertThat(lease.fencingToken()).as("not the left-over key's create revision").isGreaterThan(stale[0]);
            List<KeyValue> queue = testbed.raw().queue("retried");
            assertThat(queue).hasSize(1);
            assertThat(queue.get(0).getCreateRevision()).isEqualTo(lease.fencingToken());
        }
        assertThat(testbed.raw().queue("retried")).isEmpty();
    }

    /**
     * Guard: a join whose retry finds a key left over under its number still deletes (comparing its value) the key its
     * first try may put later. The first try's request is held in the network while the client is told it failed
     * (UNAVAILABLE: retried); a key is left over under the number (put by hand, on the client's session), so the retry
     * fails on it and the acquire joins under another number and holds. Then the first try lands and makes a key no
     * waiter owns, behind the holder. Without the value-compared deletes on this path (they ran on the error path only)
     * it stays: once the holder has released, it is the name's oldest key and keeps everyone out until the session ends.
     */
    @Test
    void aFirstTryThatLandsAfterItsRetryFoundAKeyLeftOverIsDeletedToo() throws Exception {
        RpcFaults faults = new RpcFaults();
        // the later delete runs 10 s after the failed join: time for the test to land the first try before it
        EtcdLockClient client = client(faults, Duration.ofSeconds(10));
        String name = keyOfAnAcquisition(client, "first-try");
        putLeftOver(client, name);
        RpcFaults.Held firstTry = holdTheFirstJoinTry(faults);
        try (Lease lease = client.getLock("first-try").acquire(SOON)) {
            assertThat(firstTry.awaitStarted(SOON)).isEqualTo(RpcFaults.TXN);
            assertThat(testbed.raw().queue("first-try")).as("the holder's key, under another number").singleElement()
                    .extracting(RawEtcd::keyText).isNotEqualTo(name);
            firstTry.release();
            firstTry.awaitAnswered(SOON);
            List<KeyValue> both = testbed.raw().queue("first-try");
            assertThat(both).as("the first try's key landed behind the holder's").extracting(RawEtcd::keyText).hasSize(2).contains(name);
            // one owner id made both (a join past a key left over joins again under it); a value-compared delete of the
            // first try's key must not match the holder's
            assertThat(both.get(0).getValue()).as("the values of the holder's key and the first try's").isNotEqualTo(both.get(1).getValue());
        }
        Await.until(SOON, "the first try's key is deleted", () -> testbed.raw().queue("first-try").isEmpty());
        awaitEveryNumberBack(client);
        try (Lease again = client.getLock("first-try").acquire(SOON)) {
            assertThat(testbed.raw().queue("first-try")).extracting(KeyValue::getCreateRevision).containsExactly(again.fencingToken());
        }
    }

    /**
     * Fails without the sweep after a release: a join's first try is held in the network while the client hears
     * UNAVAILABLE, and its retry makes the key, which holds. After the release the first try lands and makes the key
     * again: a key no waiter owns, the oldest of its name, which kept everyone else from the name until the client's
     * session ended. The release of a key made on a retry deletes it by the join's value now and later.
     */
    @Test
    void aFirstTryThatLandsAfterTheReleaseOfTheKeyItsRetryMadeIsDeletedToo() throws Exception {
        RpcFaults faults = new RpcFaults();
        // the later delete runs 10 s after the release: time for the test to land the first try before it
        EtcdLockClient client = client(faults, Duration.ofSeconds(10));
        RpcFaults.Held firstTry = holdTheFirstJoinTry(faults);
        try (Lease lease = client.getLock("released").acquire(SOON)) {
            assertThat(firstTry.awaitStarted(SOON)).isEqualTo(RpcFaults.TXN);
            assertThat(testbed.raw().queue("released")).as("the key the retry made").extracting(KeyValue::getCreateRevision)
                    .containsExactly(lease.fencingToken());
        }
        assertThat(testbed.raw().queue("released")).as("released").isEmpty();
        long releasedAt = testbed.raw().revision();
        firstTry.release();
        firstTry.awaitAnswered(SOON);
        Await.until(SOON, "the first try's key is deleted", () -> testbed.raw().queue("released").isEmpty());
        // the first delete, sent at the release, may meet the landed key or come before it: read what the queue held since
        assertThat(testbed.raw().queueHistory("released", releasedAt)).as("keys made after the release: the first try's").hasSize(1);
        awaitEveryNumberBack(client);
        try (EtcdLockClient other = client(); Lease taken = other.getLock("released").acquire(SOON)) {
            assertThat(testbed.raw().queue("released")).extracting(KeyValue::getCreateRevision).containsExactly(taken.fencingToken());
        }
    }

    /**
     * Fails when the number of a key made on a retry stays in use until the sweep after its release has run (max(2 s,
     * timeout) later): the acquire right after the release took a second number, and the name had two key names (the
     * CI symptom under faults of stop 53). The number comes back at once; the held first try, landing while the next
     * acquisition holds under that number, finds the key there and makes nothing, and the holder's key is untouched.
     */
    @Test
    void theNumberOfAKeyMadeOnARetryComesBackAtItsReleaseAndALateFirstTryDoesNotTouchTheNextHolder() throws Exception {
        RpcFaults faults = new RpcFaults();
        // the sweep runs 10 s after the release: the next acquisition and the landing happen before it
        EtcdLockClient client = client(faults, Duration.ofSeconds(10));
        RpcFaults.Held firstTry = holdTheFirstJoinTry(faults);
        String retried;
        try (Lease lease = client.getLock("at-once").acquire(SOON)) {
            assertThat(firstTry.awaitStarted(SOON)).isEqualTo(RpcFaults.TXN);
            retried = RawEtcd.keyText(testbed.raw().queue("at-once").get(0));
        }
        try (Lease next = client.getLock("at-once").acquire(SOON)) {
            assertThat(testbed.raw().queue("at-once")).as("the next acquisition's key, under the number just given back")
                    .extracting(RawEtcd::keyText).containsExactly(retried);
            firstTry.release();
            firstTry.awaitAnswered(SOON);
            List<KeyValue> queue = testbed.raw().queue("at-once");
            assertThat(queue).as("after the first try landed: the holder's key alone").extracting(KeyValue::getCreateRevision)
                    .containsExactly(next.fencingToken());
        }
        assertThat(testbed.raw().queue("at-once")).isEmpty();
        awaitEveryNumberBack(client);
    }

    /**
     * Guard: the background deletes of a failed join's key compare the value the join put (it names the owner id), not
     * the key's name alone. The join's create is carried out but its answer is lost as an error that is not retried, so
     * the acquire fails and the key is deleted in the background. The first delete's request is held back in the network
     * while the client times out on it, retries and ends both deletes; the number comes back, and the next acquisition of
     * the client makes a key of the same name. Then the held request lands. By name it deletes the holder's key, and the
     * queue's next waiter would hold too (the checker's seed 5008 found four overlapping holders that way, after a leader
     * kill); comparing the value, it deletes nothing.
     */
    @Test
    void aDeleteOfAFailedJoinsKeyThatLandsLateDoesNotRemoveALaterKeyOfTheSameName() throws Exception {
        RpcFaults faults = new RpcFaults();
        EtcdLockClient client = client(faults, Duration.ofSeconds(3));
        faults.loseNextAnswer(RpcFaults.TXN, Status.INTERNAL.withDescription("the answer was lost (RpcFaults)"));
        RpcFaults.Held late = faults.holdCall(1, RpcFaults.TXN, RpcFaults.DELETE_RANGE);
        assertThatThrownBy(() -> client.getLock("late").acquire(SOON)).as("the join's answer was an error").isInstanceOf(LockException.class);
        late.awaitStarted(SOON);
        // the held delete times out and its retry deletes the key; the second delete finds it gone; the number comes back
        Await.until(SOON, "the failed join's deletes have ended", () -> testbed.raw().queue("late").isEmpty()
                && LockEngine.state(client, true).orElseThrow().backend().get("names with numbered keys") == 0);
        try (Lease lease = client.getLock("late").acquire(SOON)) {
            List<KeyValue> queue = testbed.raw().queue("late");
            assertThat(queue).extracting(RawEtcd::keyText).as("the number of the failed join's key, again").hasSize(1)
                    .allMatch(key -> key.endsWith("-0"));
            late.release();
            late.awaitAnswered(SOON);
            assertThat(testbed.raw().queue("late")).as("the holder's key, after the late delete landed")
                    .extracting(KeyValue::getCreateRevision).containsExactly(lease.fencingToken());
        }
        assertThat(testbed.raw().queue("late")).isEmpty();
    }
}
