package io.distlock.zookeeper;

import io.distlock.LockInspector;
import io.distlock.LockKind;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads the locks of a namespace straight from ZooKeeper: the plain locks' parents at the root, and the
 * kinds' under {@code /~fair}, {@code /~rw} and {@code /~sem}, each queue judged by its {@link QueueRule}.
 * Locks live as long as their holder's session, so holders have no lease time here.
 */
final class ZooKeeperLockInspector implements LockInspector {
    private final ZooKeeperLockBackend backend;

    ZooKeeperLockInspector(ZooKeeperLockBackend backend) {
        this.backend = backend;
    }

    @Override
    public List<LockState> list(String pattern) {
        if (pattern == null) {
            throw new IllegalArgumentException("pattern must not be null");
        }
        CompletableFuture<List<LockState>> reading = backend.call("inspection", pattern, () -> {
            List<LockState> found = new ArrayList<>();
            read("", LockKind.LOCK, QueueRule.EXCLUSIVE, pattern, found);
            read("/~fair", LockKind.FAIR_LOCK, QueueRule.EXCLUSIVE, pattern, found);
            read("/~rw", LockKind.READ_WRITE_LOCK, QueueRule.READ, pattern, found);
            read("/~sem", LockKind.SEMAPHORE, QueueRule.PERMIT, pattern, found);
            found.sort(Comparator.comparing(LockState::name).thenComparing(LockState::kind));
            return found;
        });
        return backend.await(reading, "inspection", pattern);
    }

    private void read(String root, LockKind kind, QueueRule rule, String pattern, List<LockState> found) throws Exception {
        CuratorFramework curator = backend.curator();
        List<String> parents;
        try {
            parents = curator.getChildren().forPath(root.isEmpty() ? "/" : root);
        } catch (KeeperException.NoNodeException none) {
            return;
        }
        List<String> prefixes = QueueRule.allPrefixes();
        for (String encoded : parents) {
            if (encoded.startsWith("~")) {
                continue; // a kind's root
            }
            String name = URLDecoder.decode(encoded, StandardCharsets.UTF_8);
            if (!LockInspector.matches(pattern, name)) {
                continue;
            }
            String parent = root + "/" + encoded;
            List<String> queue;
            int permits = 0;
            try {
                queue = LockNodes.queue(curator.getChildren().forPath(parent), prefixes);
                if (kind == LockKind.SEMAPHORE) {
                    byte[] data = curator.getData().forPath(parent);
                    permits = data == null || data.length == 0 ? 0 : Integer.parseInt(new String(data, StandardCharsets.US_ASCII));
                }
            } catch (KeeperException.NoNodeException gone) {
                continue;
            }
            if (queue.isEmpty()) {
                continue;
            }
            List<String> holding = new ArrayList<>(rule.holders(queue, permits));
            if (kind == LockKind.READ_WRITE_LOCK) {
                QueueRule.WRITE.holders(queue, 0).forEach(holding::add);
            }
            List<Holder> holders = new ArrayList<>();
            for (String child : holding) {
                Stat stat = curator.checkExists().forPath(parent + "/" + child);
                if (stat != null) {
                    String role = kind == LockKind.SEMAPHORE ? "permit" : kind == LockKind.READ_WRITE_LOCK ? (QueueRule.isWriter(child) ? "write" : "read") : "hold";
                    long token = kind == LockKind.READ_WRITE_LOCK ? stat.getMzxid() : stat.getCzxid();
                    holders.add(new Holder(ownerOf(child), token, null, role));
                }
            }
            found.add(new LockState(name, kind, holders, queue.size() - holding.size(), permits));
        }
    }

    /**
     * Returns the owner id in a node's name: {@code <kind prefix><owner id>-<sequence>} after the protection prefix
     * ({@code dread-<writer's sequence>-<owner id>-<sequence>} for a downgraded reader).
     */
    private static String ownerOf(String child) {
        String bare = LockNodes.bare(child);
        int start = bare.indexOf('-') + 1;
        if (bare.startsWith(QueueRule.DOWNGRADE_PREFIX)) {
            start = QueueRule.DOWNGRADE_PREFIX.length() + 11; // the writer's sequence and "-"
        }
        int end = bare.length() - 11; // "-" + ten sequence digits
        return end > start ? bare.substring(start, end) : bare;
    }
}
