package io.distlock.etcd;

import io.etcd.jetcd.ByteSequence;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Keys of a lock's queue: {@code <namespace>/<name, URL-encoded>/<session lease, hex>-<client>-<number>} (see
 * {@link KeySlots}; a downgraded reader's key ends in its owner id instead). Neither the
 * namespace (one segment) nor the encoded name has a '/', so one lock's prefix never covers another's, of this
 * namespace or of another; the lease in the key shows an operator ({@code etcdctl get --prefix}) which session a
 * waiter belongs to.
 */
final class LockKeys {
    private final String namespace;

    LockKeys(String namespace) {
        this.namespace = namespace;
    }

    /**
     * Returns the keys of another kind of lock, under {@code <namespace>/<marker>/}. The marker must not be an encoded
     * name ({@code URLEncoder} encodes '~', so a marker starting with it is none), or a plain lock would share its keys.
     */
    LockKeys kind(String marker) {
        if (!marker.startsWith("~")) {
            throw new IllegalArgumentException("a kind's marker starts with '~', was '" + marker + "'");
        }
        return new LockKeys(namespace + "/" + marker);
    }

    /** Returns the prefix of every key of lock {@code name}, ending in '/'. */
    ByteSequence prefix(String name) {
        return bytes(prefixText(name));
    }

    /** Returns the key of one waiter. */
    ByteSequence key(String name, long leaseId, String ownerId) {
        return key(name, "", leaseId, ownerId);
    }

    /** Returns the key of one waiter whose key starts with {@code role} (see {@link QueueRule#role}). */
    ByteSequence key(String name, String role, long leaseId, String ownerId) {
        return bytes(prefixText(name) + role + Long.toHexString(leaseId) + "-" + ownerId);
    }

    /** Returns the prefix of the keys of lock {@code name} whose last segment starts with {@code role}. */
    ByteSequence rolePrefix(String name, String role) {
        return bytes(prefixText(name) + role);
    }

    /** Returns the role of a reader made by the downgrade of the writer created at {@code writerRevision}. */
    static String downgradedRole(long writerRevision) {
        return QueueRule.DOWNGRADED + Long.toHexString(writerRevision) + "-";
    }

    /** Returns the prefix of every lock of this namespace, for listings. */
    ByteSequence namespacePrefix() {
        return bytes(namespace + "/");
    }

    /**
     * Returns whether {@code key} is a queue key this namespace's clients write: {@code <namespace>/<name>/<last>}, or
     * {@code <namespace>/~<kind>/<name>/<last>} (no encoded name or last segment has a '/', and only a kind's marker
     * starts with '~'). A key of another shape under {@code <namespace>/} is not: an application's, or one that a client
     * of a nested namespace ({@code <namespace>/<segment>}, refused since, see {@link EtcdLockClient.Builder#namespace})
     * left. For the keys of the namespace itself, not of a {@link #kind}.
     */
    boolean isQueueKey(ByteSequence key) {
        String text = key.toString(StandardCharsets.UTF_8);
        String prefix = namespace + "/";
        if (!text.startsWith(prefix)) {
            return false;
        }
        String[] parts = text.substring(prefix.length()).split("/", -1);
        return parts.length == 2 && !parts[0].startsWith("~") || parts.length == 3 && parts[0].startsWith("~");
    }

    String prefixText(String name) {
        return namespace + "/" + URLEncoder.encode(name, StandardCharsets.UTF_8) + "/";
    }

    static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }
}
