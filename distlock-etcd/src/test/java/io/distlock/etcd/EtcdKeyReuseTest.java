package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Lease;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.spi.LockEngine;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.PutOption;
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
        String name;
        try (Lease first = client.getLock("left-over").acquire(SOON)) {
            name = RawEtcd.keyText(testbed.raw().queue("left-over").get(0));
        }
        ByteSequence key = ByteSequence.from(name, StandardCharsets.UTF_8);
        long stale = testbed.raw().client().getKVClient().put(key, ByteSequence.from("left over", StandardCharsets.UTF_8),
                PutOption.builder().withLeaseId(client.sessionLease()).build()).get(10, TimeUnit.SECONDS).getHeader().getRevision();
        try (Lease lease = client.getLock("left-over").acquire(SOON)) {
            assertThat(lease.fencingToken()).as("not the left-over key's create revision").isGreaterThan(stale);
            List<KeyValue> queue = testbed.raw().queue("left-over");
            // the left-over key is deleted: one key, the holder's (under the same name again if its number came back first)
            assertThat(queue).hasSize(1);
            assertThat(queue.get(0).getCreateRevision()).isEqualTo(lease.fencingToken());
        }
        assertThat(testbed.raw().queue("left-over")).isEmpty();
    }
}
