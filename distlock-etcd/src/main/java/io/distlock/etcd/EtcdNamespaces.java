package io.distlock.etcd;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.OpenOptions;
import io.distlock.spi.TargetUri;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.DeleteResponse;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.OptionsUtil;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Removes a namespace from an etcd cluster: every queue key its clients wrote, {@code <namespace>/<name>/<last>} and
 * {@code <namespace>/~<kind>/<name>/<last>} (see {@link LockKeys#isQueueKey}), and nothing else.
 */
final class EtcdNamespaces {
    /*
     * What a namespace holds: queue keys only. The fencing token is a key's create (or mod) revision and a semaphore's
     * permits ride on its keys' values, so there are no counters or other keys to remove, and a namespace whose clients
     * released everything and closed holds nothing at all (a removal then returns 0).
     *
     * Why not one delete of the prefix "<namespace>/": no other namespace has keys under it (a namespace is one segment
     * without '/', and the prefix ends with '/', so namespace "a" never reaches "ab/"), but an application may keep keys
     * of its own there, and a client of a nested namespace "a/b" (accepted before such namespaces were refused) may have
     * left keys on its session lease. The layout tells the namespace's queue keys from those (LockKeys.isQueueKey, the
     * same rule the inspector lists by). The keys are read in pages (keys only, in key order) and each page's keys of
     * the namespace are deleted in transactions of at most MAX_TXN_OPS (etcd's default --max-txn-ops is 128); the count
     * is what etcd says it deleted, so a key that went in between (its session expired) is not counted.
     *
     * Session leases are not revoked: a client's session lease carries only keys of its own namespace, which are deleted
     * here anyway, and the lease of a client that stopped expires within its TTL by itself. Revoking leases named in the
     * keys would add nothing for a namespace nobody works in, and for one somebody still works in it would end that
     * client's session, which is not this method's to decide.
     */
    private static final int PAGE = 500;
    private static final int MAX_TXN_OPS = 100;
    /** The first call also connects (and authenticates): a cold JVM needs this long, as for a lock client. */
    private static final Duration FIRST_CALL = Duration.ofSeconds(10);

    private EtcdNamespaces() {}

    /**
     * Removes every key of {@code options.namespace()} from {@code target} and returns how many were deleted.
     *
     * @throws IllegalArgumentException if the options name no namespace, or the target or the namespace is malformed
     * @throws BackendUnavailableException if no endpoint answers in time
     * @throws LockException if etcd refuses a read or delete (credentials, the role's key ranges)
     */
    static long remove(String target, OpenOptions options) {
        String namespace = options.namespace().orElseThrow(() -> new IllegalArgumentException("removeNamespace needs a namespace: the "
                + "default one (" + EtcdLockClient.DEFAULT_NAMESPACE + ") is the application's, never removed"));
        EtcdLockClient.Builder builder = EtcdBackendProvider.builder(target, options); // checks the target and the namespace's form
        LockKeys keys = builder.keys();
        ByteSequence prefix = keys.namespacePrefix();
        String prefixText = prefix.toString(StandardCharsets.UTF_8);
        if (namespace.isBlank() || !prefixText.endsWith("/") || prefixText.length() < 2) {
            throw new IllegalArgumentException("namespace '" + namespace + "' is no key prefix of its own: refusing to remove it");
        }
        EtcdConnection connection = builder.connection();
        String where = TargetUri.mask(target);
        Duration timeout = connection.operationTimeout();
        try (Client client = connection.connect()) {
            KV kv = client.getKVClient();
            ByteSequence end = OptionsUtil.prefixEndOf(prefix);
            ByteSequence from = prefix;
            Duration wait = timeout.compareTo(FIRST_CALL) < 0 ? FIRST_CALL : timeout;
            long removed = 0;
            while (true) {
                GetOption page = GetOption.builder().withRange(end).withKeysOnly(true).withLimit(PAGE).build();
                GetResponse response = call(kv.get(from, page), wait, namespace, where);
                wait = timeout;
                List<ByteSequence> ours = response.getKvs().stream().map(KeyValue::getKey).filter(keys::isQueueKey).toList();
                for (int i = 0; i < ours.size(); i += MAX_TXN_OPS) {
                    Op[] deletes = ours.subList(i, Math.min(ours.size(), i + MAX_TXN_OPS)).stream()
                            .map(key -> Op.delete(key, DeleteOption.DEFAULT)).toArray(Op[]::new);
                    removed += call(kv.txn().Then(deletes).commit(), timeout, namespace, where).getDeleteResponses().stream()
                            .mapToLong(DeleteResponse::getDeleted).sum();
                }
                List<KeyValue> read = response.getKvs();
                if (!response.isMore() || read.isEmpty()) {
                    return removed;
                }
                byte[] last = read.get(read.size() - 1).getKey().getBytes();
                byte[] next = new byte[last.length + 1]; // the smallest key after the last one read
                System.arraycopy(last, 0, next, 0, last.length);
                from = ByteSequence.from(next);
            }
        }
    }

    private static <T> T call(CompletableFuture<T> future, Duration timeout, String namespace, String where) {
        try {
            return EtcdDoctor.await(future, timeout);
        } catch (CompletionException e) {
            String what = "removing the namespace '" + namespace + "' from " + where;
            if (EtcdDoctor.unavailable(e)) {
                throw new BackendUnavailableException(what + " failed: etcd did not answer: " + EtcdDoctor.reason(e), e);
            }
            String reason = EtcdDoctor.reason(e);
            boolean refused = reason.startsWith("PERMISSION_DENIED") || reason.startsWith("UNAUTHENTICATED") || reason.contains("authentication");
            throw new LockException(what + (refused ? " was refused: " + reason + " (check the user and password, and that the user's "
                    + "role may read and delete the namespace's key range)" : " failed: " + reason), e);
        }
    }
}
