package io.distlock.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.LeaseOption;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

/** Reads and changes etcd directly, bypassing distlock, for raw-state assertions and faults. */
final class RawEtcd implements AutoCloseable {
    private final Client client;
    private final LockKeys keys = new LockKeys(EtcdLockClient.DEFAULT_NAMESPACE);
    private final LockKeys fairKeys = keys.kind("~fair");
    private final LockKeys readWriteKeys = keys.kind("~rw");
    private final LockKeys semaphoreKeys = keys.kind("~sem");

    RawEtcd(String endpoints) {
        client = Client.builder().endpoints(endpoints.split(",")).build();
    }

    /** Returns the queue keys of a lock, oldest first. */
    List<KeyValue> queue(String name) {
        return queue(keys, name);
    }

    /** Returns the queue keys of a fair lock, oldest first. */
    List<KeyValue> fairQueue(String name) {
        return queue(fairKeys, name);
    }

    /** Returns the queue keys of a read-write lock (readers' and writers'), oldest first. */
    List<KeyValue> readWriteQueue(String name) {
        return queue(readWriteKeys, name);
    }

    /** Returns the queue keys of a semaphore, oldest first. */
    List<KeyValue> semaphoreQueue(String name) {
        return queue(semaphoreKeys, name);
    }

    /** Returns whether the read-write lock {@code name} has a holder now, reader or writer (waiters do not count). */
    boolean readWriteHeld(String name) {
        List<KeyValue> queue = readWriteQueue(name);
        return !QueueRule.READ.holders(queue, 0).isEmpty() || !QueueRule.WRITE.holders(queue, 0).isEmpty();
    }

    /** Returns the server's current revision. */
    long revision() {
        try {
            return client.getKVClient().get(keys.prefix("~revision")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the revision", e);
        }
    }

    /** Returns the create revisions of the keys a lock's queue had at any revision after {@code after} (etcd keeps history until a compaction). */
    Set<Long> queueHistory(String name, long after) {
        Set<Long> made = new TreeSet<>();
        long now = revision();
        try {
            for (long at = after + 1; at <= now; at++) {
                for (KeyValue key : client.getKVClient().get(keys.prefix(name), GetOption.builder().isPrefix(true).withRevision(at).build())
                        .get(10, TimeUnit.SECONDS).getKvs()) {
                    made.add(key.getCreateRevision());
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the history of lock '" + name + "'", e);
        }
        return made;
    }

    private List<KeyValue> queue(LockKeys keys, String name) {
        try {
            return client.getKVClient().get(keys.prefix(name), GetOption.builder().isPrefix(true)
                    .withSortField(GetOption.SortTarget.CREATE).withSortOrder(GetOption.SortOrder.ASCEND).build())
                    .get(10, TimeUnit.SECONDS).getKvs();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the queue of lock '" + name + "'", e);
        }
    }

    /** Returns the keys of lock {@code name} of every kind (and of names that start with it) the server still keeps, with their leases. */
    List<String> leftovers(String name) {
        List<String> all = new java.util.ArrayList<>(leftovers(keys, name));
        all.addAll(leftovers(fairKeys, name));
        all.addAll(leftovers(readWriteKeys, name));
        all.addAll(leftovers(semaphoreKeys, name));
        return all;
    }

    private List<String> leftovers(LockKeys keys, String name) {
        String prefix = keys.prefix(name).toString(StandardCharsets.UTF_8);
        try {
            return client.getKVClient().get(LockKeys.bytes(prefix.substring(0, prefix.length() - 1)), GetOption.builder().isPrefix(true).build())
                    .get(10, TimeUnit.SECONDS).getKvs().stream().map(kv -> keyText(kv) + " (lease " + Long.toHexString(kv.getLease()) + ")").toList();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the keys of lock '" + name + "'", e);
        }
    }

    /** Deletes one key, as an operator's {@code etcdctl del} would. */
    void delete(KeyValue key) {
        try {
            client.getKVClient().delete(key.getKey()).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot delete " + keyText(key), e);
        }
    }

    /** Revokes a lease, as its expiry on the server would end it: its keys are deleted. */
    void revoke(long lease) {
        try {
            client.getLeaseClient().revoke(lease).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot revoke lease " + Long.toHexString(lease), e);
        }
    }

    /** Returns the seconds etcd still gives {@code lease}, or -1 if it has no such lease (expired or revoked). */
    long ttl(long lease) {
        try {
            return client.getLeaseClient().timeToLive(lease, LeaseOption.DEFAULT).get(10, TimeUnit.SECONDS).getTTL();
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the TTL of lease " + Long.toHexString(lease), e);
        }
    }

    static String keyText(KeyValue kv) {
        return kv.getKey().toString(StandardCharsets.UTF_8);
    }

    Client client() {
        return client;
    }

    @Override
    public void close() {
        client.close();
    }
}
