package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockKind;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every tier of the contract etcd has (the plain lock, bound to a session) against a real etcd server process. */
class EtcdLockContractTest extends BackendContract {
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    private static RawEtcd raw;

    @BeforeAll
    static void connectRaw() {
        raw = new RawEtcd(etcd.target());
    }

    @AfterAll
    static void closeRaw() {
        if (raw != null) {
            raw.close();
        }
    }

    @Override
    protected BackendHooks hooks() {
        return new BackendHooks() {
            @Override
            public Class<? extends LockClientFactory> factoryClass() {
                return EtcdClientFactory.class;
            }

            @Override
            public TestDeployment deployment() {
                return etcd;
            }

            @Override
            public Set<LockKind> kinds() {
                return Set.of(LockKind.LOCK, LockKind.FAIR_LOCK, LockKind.READ_WRITE_LOCK, LockKind.SEMAPHORE);
            }

            @Override
            public boolean heldInBackend(LockKind kind, String name) {
                return switch (kind) {
                    case LOCK -> !raw.queue(name).isEmpty();
                    case FAIR_LOCK -> !raw.fairQueue(name).isEmpty();
                    case READ_WRITE_LOCK -> raw.readWriteHeld(name);
                    case SEMAPHORE -> !raw.semaphoreQueue(name).isEmpty(); // the oldest key holds whenever there is one
                };
            }

            @Override
            public List<String> leftoversInBackend(String name) {
                return raw.leftovers(name);
            }

            /**
             * Request messages the server received, from its own metrics (every gRPC call and stream message): the few
             * clients of a test add their session keep-alives, one per third of the 4 s TTL each.
             */
            @Override
            public OptionalLong serverCalls() {
                return OptionalLong.of(etcd.cluster().requestsReceived());
            }

            /** The plain lock is a queue: waiters are granted in arrival order. */
            @Override
            public boolean plainLockIsFair() {
                return true;
            }

            /** A deleted key looks the same whoever deleted it. */
            @Override
            public boolean tellsForceUnlocks() {
                return false;
            }

            /** Leases never outlast the session. */
            @Override
            public Duration longLease() {
                return EtcdClientFactory.SESSION_TTL;
            }

            @Override
            public boolean hasSessions() {
                return true;
            }

            @Override
            public boolean hasInspector() {
                return true;
            }

            @Override
            public void expireSession(LockClient client) {
                raw.revoke(((EtcdLockClient) client).sessionLease());
            }

            @Override
            public String providerId() {
                return "etcd";
            }

            @Override
            public Optional<String> registryTarget() {
                return Optional.of(etcd.cluster().registryTarget());
            }
        };
    }

    /** What an {@code etcd://} target sets besides where the servers are. */
    @Nested
    class Targets {
        @Test
        void aTargetsSessionTtlIsTheSessionLeasesTtl() throws Exception {
            try (LockClient client = LockClients.open(etcd.cluster().registryTarget() + "?sessionTtl=3s")) {
                client.getLock("targets-" + System.nanoTime()).acquire(Duration.ofSeconds(20)).close();
                // the default is 15 s
                assertThat(raw.ttl(((EtcdLockClient) client).sessionLease())).isBetween(1L, 3L);
            }
        }
    }
}
