package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockInspector.LockState;
import io.distlock.OpenOptions;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.spi.LockBackendProvider;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Clients of two namespaces never conflict. A namespace with '/' would break that: the keys of namespace {@code x/inner}
 * lie under the prefix of lock {@code inner} of namespace {@code x} ({@code x/inner/}), whose clients saw that lock taken
 * while a client of {@code x/inner} held anything, could not take it, and freed the nested lock by force-unlocking it.
 * So such a namespace is refused wherever one is given, naming a one-segment alternative, and the clients of a namespace
 * and of that alternative are isolated for every kind of lock, in both directions.
 */
class EtcdNestedNamespacesTest {
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    @RegisterExtension
    static final EtcdTestbed testbed = new EtcdTestbed(etcd);
    private final String outer = "x" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);

    /** One kind of lock, taken so that holding it excludes every other taker of it. */
    enum Kind {
        LOCK, FAIR_LOCK, WRITE_LOCK, SEMAPHORE;

        Optional<Lease> tryAcquire(LockClient client, String name) throws InterruptedException {
            return switch (this) {
                case LOCK -> client.getLock(name).tryAcquire(Duration.ZERO);
                case FAIR_LOCK -> client.getFairLock(name).tryAcquire(Duration.ZERO);
                case WRITE_LOCK -> client.getReadWriteLock(name).writeLock().tryAcquire(Duration.ZERO);
                case SEMAPHORE -> client.getSemaphore(name, 1).tryAcquire(Duration.ZERO);
            };
        }

        boolean seenTaken(LockClient client, String name) {
            return switch (this) {
                case LOCK -> client.getLock(name).isLocked();
                case FAIR_LOCK -> client.getFairLock(name).isLocked();
                case WRITE_LOCK -> client.getReadWriteLock(name).writeLock().isLocked();
                case SEMAPHORE -> client.getSemaphore(name, 1).availablePermits() == 0;
            };
        }
    }

    @Test
    void aNamespaceWithASlashIsRefusedWhereverOneIsGivenNamingTheConflictAndAOneSegmentAlternative() {
        String nested = outer + "/inner";
        String target = etcd.cluster().registryTarget();
        LockBackendProvider provider = LockClients.provider("etcd");
        OpenOptions options = OpenOptions.defaults().namespace(nested);
        List<ThrowingCallable> uses = List.of(() -> EtcdLockClient.builder().namespace(nested), () -> LockClients.open(target, nested),
                () -> provider.open(target, options), () -> provider.removeNamespace(target, options), () -> provider.diagnose(target, options));
        for (ThrowingCallable use : uses) {
            assertThatThrownBy(use).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'" + nested + "'")
                    .hasMessageContaining("one segment").hasMessageContaining("'" + outer + "-inner'")
                    .hasMessageContaining("lock 'inner' of namespace '" + outer + "'");
        }
        assertThat(keysUnder(outer)).as("nothing was written").isEmpty();
    }

    @Test
    void locksOfEveryKindOfANamespaceAndOfTheSuggestedOneNeitherSeeNorBlockNorFreeEachOther() throws Exception {
        String neighbour = outer + "-inner";
        assertIsolated(neighbour, "one", outer, "inner");
        assertIsolated(outer, "inner", neighbour, "one");
        assertIsolated(outer, "inner", neighbour, "inner");
    }

    /** Clients that a version accepting nested namespaces left running: their keys are no lock the outer namespace lists. */
    @Test
    void theOuterNamespacesInspectorListsNoKeyOfANestedNamespace() throws Exception {
        long lease = testbed.raw().client().getLeaseClient().grant(60).get(10, TimeUnit.SECONDS).getID();
        LockKeys nested = new LockKeys(outer + "/inner"); // the keys such a client wrote, of every kind
        for (LockKeys keys : List.of(nested, nested.kind("~fair"), nested.kind("~rw"), nested.kind("~sem"))) {
            put(keys.key("one", lease, "nested-owner"), lease);
        }
        LockClient client = open(outer);
        try (Lease own = client.getFairLock("own").acquire(Duration.ofSeconds(20))) {
            assertThat(client.inspector().orElseThrow().list("*")).extracting(LockState::name).containsExactly("own");
        }
    }

    /**
     * While a client of {@code holding} holds each kind of lock {@code held}, a client of {@code other} sees every kind
     * of lock {@code free} free, takes it, and force-unlocking it leaves the holder's lock held.
     */
    private void assertIsolated(String holding, String held, String other, String free) throws Exception {
        LockClient holder = open(holding);
        LockClient bystander = open(other);
        List<String> conflicts = new ArrayList<>();
        for (Kind heldKind : Kind.values()) {
            try (Lease lease = heldKind.tryAcquire(holder, held).orElseThrow()) {
                for (Kind freeKind : Kind.values()) {
                    String what = "while " + holding + " holds " + heldKind + " " + held + ", " + other + "'s " + freeKind + " " + free;
                    if (freeKind.seenTaken(bystander, free)) {
                        conflicts.add(what + " is seen taken");
                    }
                    Optional<Lease> taken = freeKind.tryAcquire(bystander, free);
                    taken.ifPresent(Lease::close);
                    if (taken.isEmpty()) {
                        conflicts.add(what + " cannot be taken");
                    }
                }
                bystander.getLock(free).forceUnlock();
                bystander.getFairLock(free).forceUnlock();
                bystander.getReadWriteLock(free).forceUnlock();
                if (!heldKind.seenTaken(holder, held) || !lease.isValid()) {
                    conflicts.add(other + "'s force unlocks of " + free + " freed " + holding + "'s " + heldKind + " " + held);
                }
            }
        }
        assertThat(conflicts).isEmpty();
    }

    private LockClient open(String namespace) {
        LockClient client = LockClients.open(etcd.cluster().registryTarget(), namespace);
        testbed.closeAfterTest(client);
        return client;
    }

    private static void put(ByteSequence key, long lease) throws Exception {
        testbed.raw().client().getKVClient().put(key, LockKeys.bytes(""), PutOption.builder().withLeaseId(lease).build())
                .get(10, TimeUnit.SECONDS);
    }

    private static List<String> keysUnder(String prefix) {
        try {
            return testbed.raw().client().getKVClient().get(LockKeys.bytes(prefix), GetOption.builder().isPrefix(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs().stream().map(RawEtcd::keyText).toList();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the keys under " + prefix, e);
        }
    }
}
