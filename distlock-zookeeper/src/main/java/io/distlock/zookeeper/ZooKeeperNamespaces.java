package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.spi.TargetUri;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.Stat;

/**
 * The form of a namespace, and the removal of one from an ensemble: the namespace node, {@code /<namespace>} under the
 * target's chroot, with everything below it (the lock queues of every kind, their nodes, a semaphore's stored permits),
 * deleted depth first. Nothing outside that node is touched.
 */
final class ZooKeeperNamespaces {
    /*
     * Why the namespace node is always strictly below the chroot: a namespace is one or more segments of letters, digits,
     * '-' and '_' joined by '/' (the builder's rule, checked here too), so it is never empty, never absolute, never '.'
     * or '..', and "/" + namespace names a node below the chroot, never the chroot, its parent or the server's root.
     * Without a chroot, a namespace starting with "zookeeper" would name the server's own subtree (/zookeeper/config,
     * /zookeeper/quota): refused. A nested namespace ("a/b" under "a") is inside "a" and goes with it. The other way round,
     * "a/b" is also where lock "b" of namespace "a" queues: a namespace node with ephemeral children (lock nodes, which a
     * namespace never holds directly) is such a queue, held or waited for, and is refused.
     *
     * Races, for a namespace no client works in any more: the server deletes empty container nodes (the queues' parents)
     * on its own, and an ephemeral node of a dead client goes when its session expires; a node gone before its delete
     * (NoNode) is skipped and not counted. A node that gains a child while it is emptied (NotEmpty: a client still
     * works in the namespace) is listed and emptied again, a few times, then the removal is refused.
     */
    private static final Pattern FORM = Pattern.compile("[A-Za-z0-9_\\-]+(/[A-Za-z0-9_\\-]+)*");
    private static final int ATTEMPTS = 3;

    private ZooKeeperNamespaces() {}

    /**
     * Returns {@code namespace} if it is path segments of letters, digits, '-' or '_' joined by '/'.
     *
     * @throws IllegalArgumentException otherwise (null, empty, absolute, a '.' or '..' segment, any other character)
     */
    static String check(String namespace) {
        if (namespace == null || !FORM.matcher(namespace).matches()) {
            throw new IllegalArgumentException("namespace must be path segments of letters, digits, '-' or '_', was '" + namespace + "'");
        }
        return namespace;
    }

    /**
     * Removes the namespace node of {@code namespace} and everything below it, and returns how many nodes were deleted
     * (0 if there was no such node).
     *
     * @throws IllegalArgumentException if the namespace is malformed, is the server's own /zookeeper subtree, or is the queue
     *     of a held or awaited lock of an enclosing namespace
     * @throws BackendUnavailableException if no server of the target answers, or the connection is lost on the way
     * @throws LockException if the server refuses a read or delete (ACLs, credentials), or nodes keep appearing below it
     */
    static long remove(String target, String namespace) {
        ZooKeeperTarget parsed = ZooKeeperTarget.parse(target);
        check(namespace);
        String chroot = parsed.connectString().substring(String.join(",", parsed.hosts()).length()); // "" or "/": none, for ZooKeeper
        if (chroot.length() <= 1 && (namespace.equals("zookeeper") || namespace.startsWith("zookeeper/"))) {
            throw new IllegalArgumentException("namespace '" + namespace + "' is the server's own /zookeeper subtree: refusing to remove it");
        }
        String root = "/" + namespace;
        try (ZooKeeperSession session = ZooKeeperSession.open(parsed, target, false, "the removal of namespace '" + namespace + "'")) {
            checkNotAQueue(session.zooKeeper(), namespace);
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
     * the queue of a lock in an enclosing namespace ({@code a/b} of lock {@code b} in {@code a}), held or waited for.
     */
    private static void checkNotAQueue(ZooKeeper zk, String namespace) throws KeeperException, InterruptedException {
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
                int slash = namespace.lastIndexOf('/');
                throw new IllegalArgumentException(root + " holds lock nodes (" + child + "): it is the queue of a lock"
                        + (slash < 0 ? "" : " '" + namespace.substring(slash + 1) + "' in namespace '" + namespace.substring(0, slash) + "'")
                        + ", not a namespace of its own: refusing to remove it");
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
