package io.distlock.etcd;

import io.distlock.LockInspector;
import io.distlock.LockKind;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Reads the locks of a namespace straight from etcd, in one range read of {@code <namespace>/} (one revision, so one
 * consistent picture): the plain locks' queues at the top, the kinds' under {@code ~fair/}, {@code ~rw/} and
 * {@code ~sem/}, each queue judged by its {@link QueueRule}. Keys live as long as their holder's session, so holders
 * have no lease time here.
 */
final class EtcdLockInspector implements LockInspector {
    private final EtcdLockBackend backend;

    EtcdLockInspector(EtcdLockBackend backend) {
        this.backend = backend;
    }

    @Override
    public List<LockState> list(String pattern) {
        if (pattern == null) {
            throw new IllegalArgumentException("pattern must not be null");
        }
        String namespace = backend.keys().namespacePrefix().toString(StandardCharsets.UTF_8);
        GetOption everything = GetOption.builder().isPrefix(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND).build();
        GetResponse response;
        try {
            response = backend.bounded("inspection", pattern, () -> backend.retried(attempt -> backend.kv().get(backend.keys().namespacePrefix(), everything)))
                    .get(backend.operationTimeout().toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new io.distlock.LockException("inspection of '" + pattern + "' was interrupted", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException runtime ? runtime : new io.distlock.LockException("inspection failed", e.getCause());
        } catch (TimeoutException e) {
            throw new io.distlock.BackendUnavailableException("inspection of '" + pattern + "': etcd at " + backend.describe()
                    + " did not answer in time", e);
        }
        // queues by kind and name, each oldest first (the read is sorted by create revision)
        Map<LockKind, Map<String, List<KeyValue>>> queues = new LinkedHashMap<>();
        for (KeyValue key : response.getKvs()) {
            String[] parts = key.getKey().toString(StandardCharsets.UTF_8).substring(namespace.length()).split("/", -1);
            LockKind kind;
            String encoded;
            if (parts.length == 2 && !parts[0].startsWith("~")) {
                kind = LockKind.LOCK;
                encoded = parts[0];
            } else if (parts.length == 3) {
                kind = switch (parts[0]) {
                    case "~fair" -> LockKind.FAIR_LOCK;
                    case "~rw" -> LockKind.READ_WRITE_LOCK;
                    case "~sem" -> LockKind.SEMAPHORE;
                    default -> null;
                };
                encoded = parts[1];
            } else {
                continue; // not a queue key of ours
            }
            if (kind == null) {
                continue;
            }
            String name = URLDecoder.decode(encoded, StandardCharsets.UTF_8);
            if (LockInspector.matches(pattern, name)) {
                queues.computeIfAbsent(kind, k -> new LinkedHashMap<>()).computeIfAbsent(name, n -> new ArrayList<>()).add(key);
            }
        }
        List<LockState> found = new ArrayList<>();
        queues.forEach((kind, byName) -> byName.forEach((name, queue) -> found.add(state(name, kind, queue))));
        found.sort(Comparator.comparing(LockState::name).thenComparing(LockState::kind));
        return found;
    }

    private static LockState state(String name, LockKind kind, List<KeyValue> queue) {
        int permits = kind == LockKind.SEMAPHORE ? EtcdLockBackend.storedPermits(queue.get(0), 0) : 0;
        List<Holder> holders = new ArrayList<>();
        switch (kind) {
            case READ_WRITE_LOCK -> {
                QueueRule.WRITE.holders(queue, 0).forEach(key -> holders.add(holder(key, "write", key.getModRevision())));
                QueueRule.READ.holders(queue, 0).forEach(key -> holders.add(holder(key, "read", key.getModRevision())));
            }
            case SEMAPHORE -> QueueRule.PERMIT.holders(queue, permits).forEach(key -> holders.add(holder(key, "permit", key.getCreateRevision())));
            default -> QueueRule.EXCLUSIVE.holders(queue, 0).forEach(key -> holders.add(holder(key, "hold", key.getCreateRevision())));
        }
        return new LockState(name, kind, holders, queue.size() - holders.size(), permits);
    }

    /**
     * A holder from its key: the token is what the grant handed out (readers and writers: the revision of the grant's
     * write, which is the key's last change; the other kinds: the key's creation).
     */
    private static Holder holder(KeyValue key, String role, long token) {
        return new Holder(ownerOf(QueueRule.role(key), role.equals("write") || role.equals("read")), token, null, role);
    }

    /**
     * Returns the owner id in a key's last segment: {@code <lease, hex>-<owner>}, after the role of a read-write
     * lock's key ({@code r-}, {@code w-}, {@code d<writer, hex>-}). The owner is the client's id and the key's number
     * ({@link KeySlots}; numbers are reused, so one owner names successive holders of one client), or a downgraded
     * reader's owner id.
     */
    static String ownerOf(String segment, boolean readWrite) {
        String rest = segment;
        if (readWrite && (rest.startsWith(QueueRule.READ.role) || rest.startsWith(QueueRule.WRITE.role))) {
            rest = rest.substring(2);
        } else if (readWrite && rest.startsWith(QueueRule.DOWNGRADED) && rest.indexOf('-') > 1) {
            rest = rest.substring(rest.indexOf('-') + 1); // d<writer>-: a downgraded reader
        }
        int dash = rest.indexOf('-');
        return dash < 0 ? rest : rest.substring(dash + 1);
    }
}
