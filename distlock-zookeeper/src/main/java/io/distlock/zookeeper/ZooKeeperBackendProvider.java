package io.distlock.zookeeper;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * ZooKeeper in the registry: {@code zk://[user:password@]host:port[,host:port...][/chroot]}. The user info
 * authenticates with digest; the path is ZooKeeper's chroot; the namespace is the root node of the locks under it, one
 * segment of letters, digits, '-' and '_' (see {@link ZooKeeperLockClient.Builder#namespace}). To nest namespaces, put
 * the outer level in the chroot ({@code zk://host:2181/app}), not in the namespace.
 */
public final class ZooKeeperBackendProvider implements LockBackendProvider {
    /** For {@link java.util.ServiceLoader}. */
    public ZooKeeperBackendProvider() {}

    @Override
    public String id() {
        return "zookeeper";
    }

    @Override
    public String description() {
        return "ZooKeeper ensemble (Curator framework, distlock's own queue recipe); locks under a namespace node";
    }

    @Override
    public List<String> schemes() {
        return List.of("zk", "zookeeper");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("zk://host:2181[,host:2181...]", "zk://user:password@host:2181/chroot", "zk://host:2181?sessionTimeout=4s");
    }

    @Override
    public Set<LockKind> kinds() {
        return EnumSet.allOf(LockKind.class);
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public LockClient open(String target, OpenOptions options) {
        ZooKeeperTarget parsed = ZooKeeperTarget.parse(target);
        ZooKeeperLockClient.Builder builder = ZooKeeperLockClient.builder().connectString(parsed.connectString())
                .sessionTimeout(parsed.sessionTimeout()).connectionTimeout(parsed.connectionTimeout());
        if (parsed.digest() != null) {
            builder.digest(parsed.digest());
        }
        options.namespace().ifPresent(builder::namespace);
        return builder.apply(options).build();
    }

    /**
     * Examines the ensemble as {@link #open} would connect to it, read only: its voting members, the session timeout
     * it grants against the one the target asks for, each server's mode and version (with the {@code srvr} four-letter
     * word). Opens one session of its own, creates no node and closes the session.
     *
     * @throws IllegalArgumentException if the target or the options' namespace is malformed (as {@link #open} refuses them)
     * @throws io.distlock.BackendUnavailableException if no server of the target answers within the connection timeout
     */
    @Override
    public Optional<List<Finding>> diagnose(String target, OpenOptions options) {
        return Optional.of(ZooKeeperDoctor.diagnose(target, options));
    }

    @Override
    public List<DoctorCheck> doctorChecks() {
        return ZooKeeperDoctor.CHECKS;
    }

    /**
     * Removes the namespace node ({@code /<namespace>} under the target's chroot) with every node below it: the lock
     * queues of every kind, their nodes (also those of clients whose sessions have not expired yet) and a semaphore's
     * stored permits; fencing tokens are the nodes' creation ids, so there is no counter to remove. Nothing else is
     * touched: a namespace is one segment, so no other namespace of the same chroot lies under its node (clients behind a
     * chroot that is this node, {@code zk://host:2181/<namespace>}, would lose their locks with it). Connects as
     * {@link #open} does.
     *
     * @return how many nodes were deleted, the namespace node included; 0 if there was none
     * @throws IllegalArgumentException if {@code options} names no namespace (the default, {@code distlock}, is the
     *     application's), the namespace is malformed (not one segment, see {@link ZooKeeperLockClient.Builder#namespace}),
     *     is the server's own {@code /zookeeper} subtree (without a chroot) or is the queue of a held or awaited lock (the
     *     node {@code /app/b} of namespace {@code b} behind the chroot {@code /app} is where lock {@code b} of namespace
     *     {@code app} queues for clients without a chroot), or the target is malformed
     * @throws io.distlock.BackendUnavailableException if no server of the target answers within the connection timeout,
     *     or the connection is lost on the way
     * @throws io.distlock.LockException if the server refuses a read or a delete (credentials, ACLs), or nodes keep
     *     appearing in the namespace (a client still works in it)
     */
    @Override
    public long removeNamespace(String target, OpenOptions options) {
        String namespace = options.namespace().orElseThrow(() -> new IllegalArgumentException("removeNamespace needs a namespace: the "
                + "default one (" + ZooKeeperLockClient.DEFAULT_NAMESPACE + ") is the application's, never removed"));
        return ZooKeeperNamespaces.remove(target, namespace);
    }
}
