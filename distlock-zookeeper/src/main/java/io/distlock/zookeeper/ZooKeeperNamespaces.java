package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.spi.TargetUri;
import java.util.Arrays;
import java.util.List;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;

/**
 * The form of a namespace, and the removal of one from an ensemble: the namespace node, {@code /<namespace>} under the
 * target's chroot, with everything below it (the lock queues of every kind, their nodes, a semaphore's stored permits),
 * deleted depth first. Nothing outside that node is touched.
 */
final class ZooKeeperNamespaces {
    /*
     * Why a namespace is one segment of letters, digits, '-' and '_': a lock's queue is /<namespace>/<encoded name>, so
     * the node of a namespace "x/inner" would be the queue of lock "inner" of namespace "x". The clients of "x" would count
     * a node of "x/inner" named like a waiter ("lock-...") as a waiter of "inner", removing "x" would delete the locks
     * "x/inner" holds, and removing "x/inner" would delete the waiters of "x"'s lock. Nesting is the chroot's job.
     *
     * Why the namespace node is always strictly below the chroot: one such segment is never empty, '.' or '..' and has no
     * '/', so "/" + namespace names a child of the chroot, never the chroot, its parent or the server's root. Without a
     * chroot, "zookeeper" would name the server's own subtree (/zookeeper/config, /zookeeper/quota): refused.
     *
     * Why a namespace node is still checked for lock nodes: within one chroot it is never a queue (a queue is two levels
     * below the chroot), but chroots nest. /app/x is namespace "x" behind the chroot /app and also lock "x" of namespace
     * "app" of clients without a chroot (or of a client built on a Curator client with a namespace of its own). Lock nodes
     * are ephemeral and a namespace never holds one directly, so a namespace node with ephemeral children is such a queue,
     * held or waited for, and its removal is refused. The other way round (removing "app" while clients behind the chroot
     * /app hold locks there) is not detected: the target's chroot must be no other client's namespace node.
     *
     * Races, for a namespace no client works in any more: the server deletes empty container nodes (the queues' parents)
     * on its own, and an ephemeral node of a dead client goes when its session expires; a node gone before its delete
     * (NoNode) is skipped and not counted. A node that gains a child while it is emptied (NotEmpty: a client still
     * works in the namespace) is listed and emptied again, a few times, then the removal is refused.
     */
    private static final String SEGMENT = "[A-Za-z0-9_\\-]+";
    private static final int ATTEMPTS = 3;

    private ZooKeeperNamespaces() {}

    /**
     * Returns {@code namespace} if it is one segment of letters, digits, '-' or '_'.
     *
     * @throws IllegalArgumentException otherwise (null, empty, with a '/', any other character); for segments joined by
     *     '/' the message suggests them joined by '-' and names the target's chroot as the way to nest
     */
    static String check(@Nullable String namespace) {
        if (namespace == null || !namespace.matches(SEGMENT)) {
            throw new IllegalArgumentException(refusal(namespace));
        }
        return namespace;
    }

    private static String refusal(@Nullable String namespace) {
        List<String> parts = namespace == null ? List.of() : Arrays.stream(namespace.split("/")).filter(s -> !s.isEmpty()).toList();
        if (parts.size() < 2 || !parts.stream().allMatch(part -> part.matches(SEGMENT))) {
            return "namespace must be one segment of letters, digits, '-' or '_', was '" + namespace + "'";
        }
        return "namespace '" + namespace + "' must be one segment of letters, digits, '-' or '_', for example '" + String.join("-", parts)
                + "': its nodes would lie under /" + parts.get(0) + "/" + parts.get(1) + ", the queue of lock '" + parts.get(1)
                + "' of namespace '" + parts.get(0) + "', whose clients would take them for their own. Nesting is what the target's "
                + "chroot is for: zk://host:2181/app puts the namespaces of its clients under /app (a node that no client without "
                + "that chroot uses as its namespace)";
    }

    /**
     * Removes the namespace node of {@code namespace} and everything below it, and returns how many nodes were deleted
     * (0 if there was no such node).
     *
     * @throws IllegalArgumentException if the namespace is malformed, is the server's own /zookeeper subtree, or is the queue
     *     of a held or awaited lock (of a namespace of clients with a shorter chroot)
     * @throws BackendUnavailableException if no server of the target answers, or the connection is lost on the way
     * @throws LockException if the server refuses a read or delete (ACLs, credentials), or nodes keep appearing below it
     */
    static long remove(String target, String namespace) {
        ZooKeeperTarget parsed = ZooKeeperTarget.parse(target);
        check(namespace);
        String chroot = parsed.connectString().substring(String.join(",", parsed.hosts()).length()); // "" or "/": none, for ZooKeeper
        if (chroot.length() <= 1 && namespace.equals("zookeeper")) {
            throw new IllegalArgumentException("namespace 'zookeeper' is the server's own /zookeeper subtree: refusing to remove it");
        }
        String root = "/" + namespace;
        try (ZooKeeperSession session = ZooKeeperSession.open(parsed, target, false, "the removal of namespace '" + namespace + "'")) {
            checkNotAQueue(session.zooKeeper(), chroot, namespace);
            return removeTree(session.zooKeeper(), root);
        } catch (KeeperException e) {
            String what = "removing the namespace '" + namespace + "' (" + e.getPath() + ") from " + TargetUri.mask(target);
            switch (e.code()) {
                case CONNECTIONLOSS, SESSIONEXPIRED, OPERATIONTIMEOUT, SESSIONMOVED, NOTREADONLY -> throw new BackendUnavailableException(
                        what + " failed: ZooKeeper is unavailable: " + e.code(), e);
                case NOAUTH, AUTHFAILED -> throw new LockException(what + " was refused: " + e.code() + " (check the digest credentials "
                        + "of the target: the nodes are readable and deletable by their creator only)", e);
                default -> throw new LockException(what + " failed: " + e.getMessage(), e);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while removing the namespace '" + namespace + "' from " + TargetUri.mask(target), e);
        }
    }

    /**
     * Refuses a namespace node with ephemeral children: a namespace's own children are queues, never lock nodes, so it is
     * the queue of a held or awaited lock of clients with a shorter chroot (see the design note).
     */
    private static void checkNotAQueue(ZooKeeper zk, String chroot, String namespace) throws KeeperException, InterruptedException {
        String root = "/" + namespace;
        List<String> children;
        try {
            children = zk.getChildren(root, false);
        } catch (KeeperException.NoNodeException none) {
            return;
        }
        for (String child : children) {
            Stat stat = zk.exists(root + "/" + child, false);
            if (stat != null && stat.getEphemeralOwner() != 0) {
                String enclosing = chroot.length() <= 1 ? "" : chroot.substring(0, chroot.lastIndexOf('/'));
                String whose = chroot.length() <= 1 ? "" : " '" + namespace + "' of namespace '" + LockNodes.lastSegment(chroot)
                        + "' of clients with " + (enclosing.isEmpty() ? "no chroot" : "the chroot " + enclosing);
                throw new IllegalArgumentException((chroot.length() <= 1 ? "" : chroot) + root + " holds lock nodes (" + child + "): it is "
                        + "the queue of a lock" + whose + ", not a namespace of its own: refusing to remove it");
            }
        }
    }

    /** Deletes {@code path} after its children, depth first; returns how many nodes were deleted. */
    private static long removeTree(ZooKeeper zk, String path) throws KeeperException, InterruptedException {
        long removed = 0;
        for (int attempt = 1; ; attempt++) {
            List<String> children;
            try {
                children = zk.getChildren(path, false);
            } catch (KeeperException.NoNodeException gone) {
                return removed;
            }
            for (String child : children) {
                removed += removeTree(zk, path + "/" + child); // a child's name is one segment: the server never lists '/', '.' or '..'
            }
            try {
                zk.delete(path, -1);
                return removed + 1;
            } catch (KeeperException.NoNodeException gone) {
                return removed; // a container the server reaped, or an ephemeral node whose session ended
            } catch (KeeperException.NotEmptyException grew) {
                if (attempt == ATTEMPTS) {
                    throw new LockException("nodes keep appearing under " + path + ": a client still works in the namespace; stop it and "
                            + "remove the namespace again (" + removed + " nodes were removed)", grew);
                }
            }
        }
    }
}
