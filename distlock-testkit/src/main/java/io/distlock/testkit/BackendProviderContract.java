package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockKind;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.ThrowingConsumer;

/**
 * A backend as the registry sees it: found by {@link java.util.ServiceLoader} under its id and its target's scheme,
 * its clients opened from a target URI lock for real, and it declares exactly the kinds and the inspector its
 * clients have (a kind it does not declare is refused with {@link UnsupportedOperationException}). The backend's
 * hooks supply the provider's id and a target, in the registry's form, of the servers under test.
 */
public abstract class BackendProviderContract {
    private static final Duration SOON = Duration.ofSeconds(20);
    private final List<LockClient> clients = new ArrayList<>();

    /** Returns the hooks of the backend under test (see {@link BackendContract}). */
    protected abstract BackendHooks hooks();

    private String providerId() {
        return hooks().providerId();
    }

    private String registryTarget() {
        return hooks().registryTarget().orElseThrow();
    }

    @BeforeEach
    void runsWhereTheRegistryCanOpenTheDeployment() {
        assumeTrue(!BackendContract.deselected(getClass()), () -> "Registry is not among the tiers of " + BackendContract.TIERS_PROPERTY);
        assumeTrue(hooks().registryTarget().isPresent(), () -> "the registry cannot open the deployment of " + hooks());
    }

    @AfterEach
    void closeClients() {
        clients.forEach(LockClient::close);
    }

    @Test
    void theProviderIsFoundByItsIdAndByItsTargetsScheme() {
        LockBackendProvider provider = LockClients.provider(providerId());
        assertThat(LockClients.providerFor(registryTarget()).id()).isEqualTo(providerId());
        assertThat(LockClients.providers()).extracting(LockBackendProvider::id).contains(providerId());
        assertThat(provider.kinds()).contains(LockKind.LOCK);
        assertThat(provider.description()).isNotBlank();
        assertThat(provider.exampleTargets()).isNotEmpty().allSatisfy(example ->
                assertThat(provider.schemes()).anySatisfy(scheme -> assertThat(example.toLowerCase()).startsWith(scheme + ":")));
    }

    @Test
    void aClientOpenedFromTheTargetKeepsTheLockFromAnother() throws Exception {
        String name = uniqueName();
        LockClient first = open(null);
        LockClient second = open(null);
        Lease lease = first.getLock(name).acquire(SOON);
        assertThat(second.getLock(name).tryAcquire(Duration.ZERO)).as("taken by the first client").isEmpty();
        lease.close();
        try (Lease next = second.getLock(name).acquire(SOON)) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }

    @Test
    void clientsOfTwoNamespacesNeverConflictAndOfOneNamespaceDo() throws Exception {
        String name = uniqueName();
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        LockClient a = open("dl_ns_a" + suffix);
        LockClient b = open("dl_ns_b" + suffix);
        LockClient alsoA = open("dl_ns_a" + suffix);
        try (Lease inA = a.getLock(name).acquire(SOON); Lease inB = b.getLock(name).acquire(SOON)) {
            assertThat(inA.isValid() && inB.isValid()).isTrue();
            assertThat(alsoA.getLock(name).tryAcquire(Duration.ZERO)).as("the same namespace holds it").isEmpty();
        }
    }

    @Test
    void everyDeclaredKindWorksAndEveryOtherIsRefused() throws Exception {
        LockBackendProvider provider = LockClients.provider(providerId());
        LockClient client = open(null);
        for (LockKind kind : LockKind.values()) {
            String name = uniqueName() + "-" + kind.name().toLowerCase();
            ThrowingConsumer<LockClient> use = switch (kind) {
                case LOCK -> c -> c.getLock(name).acquire(SOON).close();
                case FAIR_LOCK -> c -> c.getFairLock(name).acquire(SOON).close();
                case READ_WRITE_LOCK -> c -> c.getReadWriteLock(name).readLock().acquire(SOON).close();
                case SEMAPHORE -> c -> c.getSemaphore(name, 2).acquire(SOON).close();
            };
            if (provider.kinds().contains(kind)) {
                try {
                    use.accept(client);
                } catch (Throwable e) {
                    throw new AssertionError(providerId() + " declares " + kind + " but its client failed to use it", e);
                }
            } else {
                assertThatThrownBy(() -> use.accept(client)).as("%s does not declare %s", providerId(), kind)
                        .isInstanceOf(UnsupportedOperationException.class);
            }
        }
    }

    /**
     * Issue 29 (a backend opened from a target "plus options"): the settings every builder has reach the client the
     * registry opens: its default lock options (a lease of 2 s without renewal here), its listeners, its namespace.
     */
    @Test
    void aClientOpenedWithOptionsUsesThem() throws Exception {
        String name = uniqueName();
        String namespace = "dl_opt" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        List<Lease> acquired = new java.util.concurrent.CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void acquired(Lease lease) {
                acquired.add(lease);
            }
        };
        LockClient client = LockClients.open(registryTarget(), OpenOptions.defaults().namespace(namespace)
                .lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(2)).autoRenew(false).build())
                .operationTimeout(Duration.ofSeconds(5)).listener(listener));
        clients.add(client);
        LockClient elsewhere = open(null);
        try (Lease lease = client.getLock(name).acquire(SOON)) {
            assertThat(lease.remaining()).as("the lease of the default lock options").isPositive().isLessThanOrEqualTo(Duration.ofSeconds(2));
            assertThat(acquired).as("the listener heard the acquisition").extracting(Lease::fencingToken).containsExactly(lease.fencingToken());
            assertThat(elsewhere.getLock(name).tryAcquire(Duration.ZERO)).as("free in the default namespace").isPresent().get()
                    .satisfies(Lease::close);
        }
    }

    @Test
    void theInspectorIsThereExactlyWhenTheProviderSaysSo() {
        LockBackendProvider provider = LockClients.provider(providerId());
        Optional<?> inspector = open(null).inspector();
        assertThat(inspector.isPresent()).as("%s.hasInspector() is %s", providerId(), provider.hasInspector())
                .isEqualTo(provider.hasInspector());
    }

    @Test
    void theDoctorsFindingsAllComeFromItsCatalogue() {
        LockBackendProvider provider = LockClients.provider(providerId());
        List<DoctorCheck> catalogue = provider.doctorChecks();
        Optional<List<Finding>> findings = provider.diagnose(registryTarget(), OpenOptions.defaults());
        assertThat(findings.isPresent()).as("%s has a doctor exactly when it has a catalogue", providerId()).isEqualTo(!catalogue.isEmpty());
        assertThat(catalogue).extracting(DoctorCheck::id).doesNotHaveDuplicates()
                .allSatisfy(id -> assertThat(id).startsWith(providerId() + "."));
        findings.ifPresent(found -> assertThat(found).isNotEmpty().extracting(Finding::check).allSatisfy(check -> assertThat(catalogue).extracting(DoctorCheck::id).contains(check)));
    }

    @Test
    void removingANamespaceRemovesItsLocksAndNothingOfAnotherNamespace() throws Exception {
        LockBackendProvider provider = LockClients.provider(providerId());
        String removed = "removed" + UUID.randomUUID().toString().substring(0, 8);
        String kept = "kept" + UUID.randomUUID().toString().substring(0, 8);
        try {
            provider.removeNamespace(registryTarget(), OpenOptions.defaults().namespace(removed));
        } catch (UnsupportedOperationException none) {
            assertThatThrownBy(() -> provider.removeNamespace(registryTarget(), OpenOptions.defaults())).isInstanceOf(UnsupportedOperationException.class);
            return;
        }
        assertThatThrownBy(() -> provider.removeNamespace(registryTarget(), OpenOptions.defaults())).as("the default namespace is never removed")
                .isInstanceOf(IllegalArgumentException.class);
        LockClient gone = open(removed);
        LockClient stays = open(kept);
        Lease keptLease = stays.getLock("shared-name").acquire(SOON);
        gone.getLock("shared-name").acquire(SOON).close();
        gone.getLock("another").acquire(SOON).close();
        gone.close(); // removal is for namespaces no client works in any more
        // what a clean release leaves (token counters on Redis, the tables on SQL; nothing on etcd, whose tokens are
        // revisions) differs by backend: each backend's own test counts exactly what a crashed holder leaves
        assertThat(provider.removeNamespace(registryTarget(), OpenOptions.defaults().namespace(removed))).isNotNegative();
        assertThat(provider.removeNamespace(registryTarget(), OpenOptions.defaults().namespace(removed))).as("nothing is left").isZero();
        assertThat(keptLease.isValid()).isTrue();
        LockClient other = open(kept);
        assertThat(other.getLock("shared-name").tryAcquire(Duration.ZERO)).as("the other namespace's lock is still held").isEmpty();
        keptLease.close();
    }

    private LockClient open(@Nullable String namespace) {
        LockClient client = LockClients.open(registryTarget(), namespace);
        clients.add(client);
        return client;
    }

    private static String uniqueName() {
        return "provider-" + UUID.randomUUID();
    }
}
