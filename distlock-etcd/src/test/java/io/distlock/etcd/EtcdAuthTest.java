package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.auth.Permission;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Locks, and the removal of a namespace, on an etcd with authentication on: a user whose role covers the namespace works,
 * others get clear errors.
 */
class EtcdAuthTest {
    @RegisterExtension
    static final EtcdClusterExtension etcd = new EtcdClusterExtension();
    private static final String REMOVED = "auth-removed";

    @BeforeAll
    static void enableAuthentication() throws Exception {
        try (RawEtcd raw = new RawEtcd(etcd.target())) {
            Auth auth = raw.client().getAuthClient();
            await(auth.userAdd(bytes("root"), bytes("root-secret")));
            await(auth.roleAdd(bytes("root")));
            await(auth.userGrantRole(bytes("root"), bytes("root")));
            await(auth.roleAdd(bytes("locks")));
            // the namespace's key range: "distlock/" up to, not including, "distlock0" ('0' follows '/')
            await(auth.roleGrantPermission(bytes("locks"), bytes("distlock/"), bytes("distlock0"), Permission.Type.READWRITE));
            // and of a second namespace, the one the removal test removes (a namespace is one segment: one range each)
            await(auth.roleGrantPermission(bytes("locks"), bytes(REMOVED + "/"), bytes(REMOVED + "0"), Permission.Type.READWRITE));
            await(auth.userAdd(bytes("app"), bytes("app-secret")));
            await(auth.userGrantRole(bytes("app"), bytes("locks")));
            await(auth.userAdd(bytes("stranger"), bytes("stranger-secret")));
            await(auth.authEnable());
        }
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    private static void await(java.util.concurrent.CompletableFuture<?> future) throws Exception {
        future.get(10, TimeUnit.SECONDS);
    }

    private EtcdLockClient.Builder builder() {
        return EtcdLockClient.builder().endpoints(etcd.target()).sessionTtl(Duration.ofSeconds(4)).operationTimeout(Duration.ofSeconds(2));
    }

    @Test
    void aUserWhoseRoleCoversTheNamespaceLocks() throws Exception {
        try (LockClient locks = builder().credentials("app", "app-secret").build();
                Lease lease = locks.getLock("auth-ok").acquire(Duration.ofSeconds(5))) {
            assertThat(lease.fencingToken()).isPositive();
            assertThat(locks.getLock("auth-ok").isLocked()).isTrue();
        }
    }

    @Test
    void aWrongPasswordIsRefusedAtBuildNamingTheCredentials() {
        assertThatThrownBy(() -> builder().credentials("app", "wrong").build())
                .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("refused").hasMessageContaining("user");
    }

    @Test
    void aUserWithoutPermissionOnTheNamespaceGetsAClearErrorAndLeavesNothing() throws Exception {
        try (LockClient locks = builder().credentials("stranger", "stranger-secret").build()) {
            assertThatThrownBy(() -> locks.getLock("auth-denied").acquire(Duration.ofSeconds(5)))
                    .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("refused").hasMessageContaining("role");
        }
        try (LockClient locks = builder().credentials("app", "app-secret").build()) {
            assertThat(locks.getLock("auth-denied").isLocked()).isFalse();
        }
    }

    @Test
    void aUserWhoseRoleCoversTheNamespaceRemovesItAndAUserWithoutPermissionIsRefusedRemovingNothing() throws Exception {
        String namespace = REMOVED; // inside the role's second range
        String target = etcd.cluster().registryTarget();
        OpenOptions options = OpenOptions.defaults().namespace(namespace).operationTimeout(Duration.ofSeconds(2));
        try (LockClient locks = builder().credentials("app", "app-secret").namespace(namespace).build()) {
            locks.getLock("one").acquire(Duration.ofSeconds(5)); // held: what removal deletes, under a live holder
            String stranger = target.replace("etcd://", "etcd://stranger:stranger-secret@");
            assertThatThrownBy(() -> LockClients.provider("etcd").removeNamespace(stranger, options))
                    .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("refused").hasMessageContaining("role").hasMessageNotContaining("stranger-secret");
            assertThat(locks.getLock("one").isLocked()).isTrue();
            assertThat(LockClients.provider("etcd").removeNamespace(target.replace("etcd://", "etcd://app:app-secret@"), options)).isEqualTo(1);
            assertThat(locks.getLock("one").isLocked()).isFalse();
        }
    }
}
