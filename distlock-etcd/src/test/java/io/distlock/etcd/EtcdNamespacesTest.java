package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.servers.FreePorts;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code removeNamespace} on a real etcd: the keys of every kind of lock of the namespace go, left by a client that
 * stopped without cleaning up; keys outside it stay - an application's, those of a namespace that only starts with the
 * same letters, those a client of a namespace nested in it left (such namespaces are refused now, see
 * EtcdNestedNamespacesTest, but a client of an older version may still run) - and so do the locks other namespaces hold.
 */
class EtcdNamespacesTest {
    private static final Duration SOON = Duration.ofSeconds(20);
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    @RegisterExtension
    static final EtcdTestbed testbed = new EtcdTestbed(etcd);

    private static long remove(String namespace) {
        return LockClients.provider("etcd").removeNamespace(etcd.cluster().registryTarget(), OpenOptions.defaults().namespace(namespace));
    }

    private LockClient open(String namespace) {
        LockClient client = LockClients.open(etcd.cluster().registryTarget(), namespace);
        testbed.closeAfterTest(client);
        return client;
    }

    @Test
    void theKeysOfEveryKindOfLockGoAndNothingOutsideTheNamespaceNorAnotherNamespacesHeldLock() throws Exception {
        String namespace = "rm" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        // outside: an application's keys (the namespace's name itself, and a key under its prefix that is no lock's)
        put(namespace, "application value");
        put(namespace + "/settings", "application value");
        Lease longer = open(namespace + "b").getLock("one").acquire(SOON); // a namespace that only starts with the same letters
        long crashedLease = crashedClientHolding(namespace);
        long nestedLease = testbed.raw().client().getLeaseClient().grant(60).get(10, TimeUnit.SECONDS).getID();
        LockKeys nested = new LockKeys(namespace + "/inner"); // what a client of a nested namespace wrote, on its session lease
        put(nested.key("one", nestedLease, "nested-owner"), nestedLease);
        put(nested.kind("~sem").key("four", nestedLease, "nested-owner"), nestedLease);
        assertThat(lockKeys(namespace)).as("one key per lock the crashed client held").hasSize(4);
        List<String> outside = keysUnder(namespace).stream().filter(key -> !lockKeys(namespace).contains(key)).toList();
        assertThat(outside).hasSize(5); // the application's two, the nested namespace's two, and the longer namespace's lock

        assertThat(remove(namespace)).isEqualTo(4);

        assertThat(lockKeys(namespace)).isEmpty();
        assertThat(keysUnder(namespace)).containsExactlyInAnyOrderElementsOf(outside);
        assertThat(value(namespace)).isEqualTo("application value");
        assertThat(value(namespace + "/settings")).isEqualTo("application value");
        assertThat(longer.isValid()).isTrue();
        assertThat(open(namespace + "b").getLock("one").tryAcquire(Duration.ZERO)).as("the longer namespace's lock is still held").isEmpty();
        assertThat(testbed.raw().ttl(crashedLease)).as("the crashed client's session lease is left to expire, not revoked").isPositive();
        try (Lease again = open(namespace).getLock("one").acquire(SOON)) {
            assertThat(again.isValid()).as("the crashed client's lock is free").isTrue();
        }
        assertThat(remove(namespace)).as("nothing is left").isZero();
        longer.close();
    }

    @Test
    void moreKeysThanOnePageAndOneTransactionAreAllRemoved() throws Exception {
        String namespace = "rm-many-" + System.nanoTime();
        LockKeys keys = new LockKeys(namespace);
        List<CompletableFuture<?>> puts = new ArrayList<>();
        for (int i = 0; i < 1234; i++) { // the removal reads 500 keys a page and deletes 100 a transaction
            ByteSequence key = (i % 2 == 0 ? keys : keys.kind("~sem")).key("lock-" + i, 0x1234, "owner-" + i);
            puts.add(testbed.raw().client().getKVClient().put(key, bytes("")));
        }
        for (CompletableFuture<?> put : puts) {
            put.get(10, TimeUnit.SECONDS);
        }
        assertThat(lockKeys(namespace)).hasSize(1234);
        assertThat(remove(namespace)).isEqualTo(1234);
        assertThat(keysUnder(namespace)).isEmpty();
    }

    @Test
    void noNamespaceTheDefaultOneAndANamespaceThatIsNoPrefixOfItsOwnAreRefusedRemovingNothing() {
        String target = etcd.cluster().registryTarget();
        put("distlock-refusal-canary", "application value");
        assertThatThrownBy(() -> LockClients.provider("etcd").removeNamespace(target, OpenOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("application's");
        for (String malformed : List.of("", " ", "/", "a/", "/a", "a/b", "a//b", "a*", "~fair", "a b")) {
            assertThatThrownBy(() -> remove(malformed)).as("namespace '%s'", malformed).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("namespace");
        }
        assertThat(value("distlock-refusal-canary")).isEqualTo("application value");
    }

    @Test
    void anUnreachableServerIsUnavailableNamingTheMaskedTarget() {
        int port = FreePorts.next();
        assertThatThrownBy(() -> LockClients.provider("etcd").removeNamespace("etcd://app:secret@127.0.0.1:" + port,
                OpenOptions.defaults().namespace("rm-unreachable").operationTimeout(Duration.ofSeconds(1))))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("127.0.0.1:" + port).hasMessageNotContaining("secret");
    }

    /**
     * Takes a lock of every kind in {@code namespace} and drops the connection without releasing or revoking, as a
     * crashed process would: the keys stay until the session lease expires (a minute); returns that lease.
     */
    private long crashedClientHolding(String namespace) throws Exception {
        Client jetcd = Client.builder().endpoints(etcd.target().split(",")).build();
        EtcdLockClient client = EtcdLockClient.builder().client(jetcd).namespace(namespace).sessionTtl(Duration.ofSeconds(60))
                .operationTimeout(Duration.ofSeconds(2)).build();
        testbed.closeAfterTest(client);
        client.getLock("one").acquire(SOON);
        client.getFairLock("two").acquire(SOON);
        client.getReadWriteLock("three").writeLock().acquire(SOON);
        client.getSemaphore("four", 2).acquire(SOON);
        long lease = client.sessionLease();
        jetcd.close(); // the lock client's releases and its revoke on close find the connection gone
        return lease;
    }

    /** Returns the keys the namespace's clients wrote, by the layout (and never a nested namespace's). */
    private static List<String> lockKeys(String namespace) {
        LockKeys keys = new LockKeys(namespace);
        return keysUnder(namespace).stream().filter(key -> keys.isQueueKey(LockKeys.bytes(key))).toList();
    }

    /** Returns every key that starts with {@code namespace}, whatever follows. */
    private static List<String> keysUnder(String namespace) {
        try {
            return testbed.raw().client().getKVClient().get(bytes(namespace), GetOption.builder().isPrefix(true).withKeysOnly(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs().stream().map(RawEtcd::keyText).toList();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the keys under " + namespace, e);
        }
    }

    private static void put(ByteSequence key, long lease) throws Exception {
        testbed.raw().client().getKVClient().put(key, bytes(""), PutOption.builder().withLeaseId(lease).build()).get(10, TimeUnit.SECONDS);
    }

    private static void put(String key, String value) {
        try {
            testbed.raw().client().getKVClient().put(bytes(key), bytes(value)).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot put " + key, e);
        }
    }

    private static String value(String key) {
        try {
            List<KeyValue> kvs = testbed.raw().client().getKVClient().get(bytes(key)).get(10, TimeUnit.SECONDS).getKvs();
            return kvs.isEmpty() ? "(none)" : kvs.get(0).getValue().toString(StandardCharsets.UTF_8);
        } catch (Exception e) {
            throw new IllegalStateException("cannot read " + key, e);
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
