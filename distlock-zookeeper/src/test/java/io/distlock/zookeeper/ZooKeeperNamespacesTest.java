package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import io.distlock.servers.FreePorts;
import io.distlock.spi.LockBackendProvider;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;
import org.apache.curator.utils.ZKPaths;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Namespace removal on a real server, behind a chroot and with digest credentials: everything of the namespace goes,
 * the application's own nodes and other namespaces' locks stay, and namespaces that could name anything outside the
 * namespace node are refused before anything is read. The level above the namespace is the target's chroot: a namespace
 * is one segment, since the node of a nested one ({@code x/inner}) would be the queue of lock {@code inner} of
 * namespace {@code x}.
 */
class ZooKeeperNamespacesTest {
    private static final Duration SOON = Duration.ofSeconds(20);
    private static final LockBackendProvider PROVIDER = LockClients.provider("zookeeper");
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close(); // clients before their server
        }
    }

    @Test
    void removingANamespaceLeavesTheApplicationsNodesAndAnotherNamespacesHeldLock() throws Exception {
        ZooKeeperServer server = closing(ZooKeeperServer.launch());
        CuratorFramework raw = raw(server.connectString());
        raw.create().creatingParentsIfNeeded().forPath("/app/tools/appdata", bytes("the application's"));
        raw.create().forPath("/app/tools/check1-config", bytes("a sibling whose name starts with the namespace's"));
        String target = "zk://alice:secret@" + server.connectString() + "/app/tools"; // the chroot is the "tools" level

        Lease otherNamespace = open(target, "other").getLock("shared-name").acquire(SOON);
        Lease defaultNamespace = open(target, null).getLock("shared-name").acquire(SOON);
        LockClient gone = open(target, "check1");
        gone.getLock("shared-name").acquire(SOON).close();
        gone.getFairLock("fair").acquire(SOON).close();
        gone.getReadWriteLock("rw").readLock().acquire(SOON).close();
        gone.getSemaphore("permits", 2).acquire(SOON).close();
        gone.close(); // removal is for namespaces no client works in any more...
        // ...but a worker that was killed leaves its node until its session expires
        open(target, "check1").getLock("held").acquire(SOON);
        assertThat(raw.checkExists().forPath("/app/tools/check1/held")).isNotNull();

        assertThatThrownBy(() -> PROVIDER.removeNamespace("zk://" + server.connectString() + "/app/tools", OpenOptions.defaults()
                .namespace("check1"))).as("without alice's credentials the nodes cannot be read").isInstanceOf(LockException.class)
                .hasMessageContaining("NOAUTH").hasMessageContaining("digest credentials");
        assertThat(raw.checkExists().forPath("/app/tools/check1/held")).as("nothing removed").isNotNull();

        long removed = PROVIDER.removeNamespace(target, OpenOptions.defaults().namespace("check1"));
        assertThat(removed).as("the namespace node, the held lock's queue node and its node, at least").isGreaterThanOrEqualTo(3);
        assertThat(raw.checkExists().forPath("/app/tools/check1")).isNull();
        assertThat(PROVIDER.removeNamespace(target, OpenOptions.defaults().namespace("check1"))).as("nothing is left").isZero();

        // a client whose chroot is one level up, in namespace "tools", queues lock "held-in-tools" at a namespace's node
        Lease enclosing = open("zk://alice:secret@" + server.connectString() + "/app", "tools").getLock("held-in-tools").acquire(SOON);
        assertThatThrownBy(() -> PROVIDER.removeNamespace(target, OpenOptions.defaults().namespace("held-in-tools")))
                .as("the queue of lock 'held-in-tools' in namespace 'tools' behind the chroot /app").isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/app/tools/held-in-tools holds lock nodes")
                .hasMessageContaining("the queue of a lock 'held-in-tools' of namespace 'tools' of clients with the chroot /app");
        assertThat(enclosing.isValid()).isTrue();
        assertThat(open("zk://alice:secret@" + server.connectString() + "/app", "tools").getLock("held-in-tools").tryAcquire(Duration.ZERO))
                .as("still held in tools").isEmpty();

        assertThat(new String(raw.getData().forPath("/app/tools/appdata"), StandardCharsets.UTF_8)).isEqualTo("the application's");
        assertThat(raw.checkExists().forPath("/app/tools/check1-config")).isNotNull();
        assertThat(otherNamespace.isValid() && defaultNamespace.isValid()).isTrue();
        assertThat(open(target, "other").getLock("shared-name").tryAcquire(Duration.ZERO)).as("still held in other").isEmpty();
        assertThat(open(target, null).getLock("shared-name").tryAcquire(Duration.ZERO)).as("still held in the default namespace").isEmpty();
    }

    @Test
    void aNestedNamespaceIsRefusedByTheBuilderOpenRemovalAndTheDoctorNamingAOneSegmentNamespaceAndTheChroot() throws Exception {
        ZooKeeperServer server = closing(ZooKeeperServer.launch());
        CuratorFramework raw = raw(server.connectString());
        List<String> before = tree(raw, "/");
        String target = "zk://" + server.connectString();
        OpenOptions options = OpenOptions.defaults().namespace("x/inner");
        Map<String, ThrowingCallable> uses = new LinkedHashMap<>();
        uses.put("the builder", () -> ZooKeeperLockClient.builder().namespace("x/inner"));
        uses.put("LockClients.open", () -> closing(LockClients.open(target, "x/inner")));
        uses.put("the provider's open", () -> closing(PROVIDER.open(target, options)));
        uses.put("removeNamespace", () -> PROVIDER.removeNamespace(target, options));
        uses.put("the doctor", () -> PROVIDER.diagnose(target, options));
        Map<String, String> refusals = new LinkedHashMap<>();
        uses.forEach((use, call) -> {
            Throwable thrown = catchThrowable(call);
            refusals.put(use, thrown instanceof IllegalArgumentException ? thrown.getMessage()
                    : thrown == null ? "accepted" : "not refused but " + thrown);
        });
        assertThat(refusals).allSatisfy((use, message) -> assertThat(message).as(use).contains("namespace 'x/inner' must be one segment",
                "for example 'x-inner'", "the queue of lock 'inner' of namespace 'x'", "Nesting is what the target's chroot is for: zk://host:2181/app"));
        assertThatThrownBy(() -> ZooKeeperLockClient.builder().namespace("a/b/c")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("for example 'a-b-c'").hasMessageContaining("under /a/b, the queue of lock 'b' of namespace 'a'");
        assertThat(tree(raw, "/")).as("no node was created or removed").isEqualTo(before);
    }

    @Test
    void namespacesThatCouldNameTheRootTheChrootOrAParentAreRefusedAndNothingIsTouched() throws Exception {
        ZooKeeperServer server = closing(ZooKeeperServer.launch());
        CuratorFramework raw = raw(server.connectString());
        raw.create().creatingParentsIfNeeded().forPath("/app/distlock/some-lock", bytes("data"));
        raw.create().forPath("/top", bytes("data"));
        List<String> before = tree(raw, "/");
        String plain = "zk://" + server.connectString();
        for (String target : List.of(plain, plain + "/", plain + "/app")) {
            for (String namespace : List.of("", "/", ".", "..", "a/../..", "../app", "/app", "app/", "app/distlock", "app//distlock",
                    "app/./distlock", "app/..", "app distlock", "*", "~fair", "zookeeper/config", "zookeeper/quota")) {
                assertThatThrownBy(() -> PROVIDER.removeNamespace(target, OpenOptions.defaults().namespace(namespace)))
                        .as("namespace '%s' on %s", namespace, target).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("must be one segment of letters, digits, '-' or '_'");
            }
            assertThatThrownBy(() -> PROVIDER.removeNamespace(target, OpenOptions.defaults())).as("the default namespace")
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("is the application's");
        }
        for (String target : List.of(plain, plain + "/")) {
            assertThatThrownBy(() -> PROVIDER.removeNamespace(target, OpenOptions.defaults().namespace("zookeeper")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("the server's own /zookeeper subtree");
        }
        assertThat(tree(raw, "/")).as("every node is still there").isEqualTo(before);
        assertThat(PROVIDER.removeNamespace(plain + "/app", OpenOptions.defaults().namespace("zookeeper")))
                .as("under a chroot, 'zookeeper' is an ordinary name (there is no such node here)").isZero();
    }

    @Test
    void anUnreachableServerIsReportedWithItsTargetMasked() {
        int port = FreePorts.next();
        assertThatThrownBy(() -> PROVIDER.removeNamespace("zk://alice:secret@127.0.0.1:" + port + "?connectionTimeout=1s",
                OpenOptions.defaults().namespace("tools"))).isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("zk://alice:***@127.0.0.1:" + port).hasMessageNotContaining("secret");
    }

    private LockClient open(String target, String namespace) {
        return closing(LockClients.open(target, namespace));
    }

    private CuratorFramework raw(String connectString) throws InterruptedException {
        // the application's own client: alice too, so it reads what the namespace's clients create; its nodes are open to all
        CuratorFramework raw = CuratorFrameworkFactory.builder().connectString(connectString).sessionTimeoutMs(5000)
                .connectionTimeoutMs(5000).retryPolicy(new RetryNTimes(10, 200)).authorization("digest", bytes("alice:secret")).build();
        closing(raw::close);
        raw.start();
        assertThat(raw.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        return raw;
    }

    /** Returns every node at and below {@code path} with its data, depth first. */
    private static List<String> tree(CuratorFramework raw, String path) throws Exception {
        List<String> nodes = new ArrayList<>();
        byte[] data = raw.getData().forPath(path);
        nodes.add(path + "=" + (data == null ? "" : new String(data, StandardCharsets.UTF_8)));
        for (String child : raw.getChildren().forPath(path)) {
            nodes.addAll(tree(raw, ZKPaths.makePath(path, child)));
        }
        return nodes;
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
