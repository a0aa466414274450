package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.spi.TargetUri;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.zookeeper.Watcher.Event.KeeperState;
import org.apache.zookeeper.ZooKeeper;

/**
 * One plain ZooKeeper session opened from a target the way the application's client connects (the same connect string
 * and chroot, digest credentials, requested session timeout and connection timeout), for what the provider does
 * without a lock client: the doctor and namespace removal. Closing it ends the session, and with it any ephemeral node
 * it made (it makes none).
 */
final class ZooKeeperSession implements AutoCloseable {
    private final ZooKeeper zooKeeper;
    private final AtomicBoolean readOnly;

    private ZooKeeperSession(ZooKeeper zooKeeper, AtomicBoolean readOnly) {
        this.zooKeeper = zooKeeper;
        this.readOnly = readOnly;
    }

    /**
     * Connects to {@code parsed} and waits for the session.
     *
     * @param target the target as the user wrote it, for messages (masked)
     * @param canBeReadOnly whether a server cut off from its quorum may take the session (read only)
     * @param purpose who connects, for messages: "the ZooKeeper doctor"
     * @throws BackendUnavailableException if no server of the target gives a session within the connection timeout
     */
    static ZooKeeperSession open(ZooKeeperTarget parsed, String target, boolean canBeReadOnly, String purpose) {
        CountDownLatch connected = new CountDownLatch(1);
        AtomicBoolean readOnly = new AtomicBoolean();
        ZooKeeper zk;
        try {
            zk = new ZooKeeper(parsed.connectString(), (int) parsed.sessionTimeout().toMillis(), event -> {
                if (event.getState() == KeeperState.SyncConnected || event.getState() == KeeperState.ConnectedReadOnly) {
                    readOnly.set(event.getState() == KeeperState.ConnectedReadOnly);
                    connected.countDown();
                }
            }, canBeReadOnly);
        } catch (IOException e) {
            throw new BackendUnavailableException(purpose + " could not connect to " + TargetUri.mask(target) + ": " + e.getMessage(), e);
        }
        ZooKeeperSession session = new ZooKeeperSession(zk, readOnly);
        try {
            if (parsed.digest() != null) {
                zk.addAuthInfo("digest", parsed.digest().getBytes(StandardCharsets.UTF_8));
            }
            Duration timeout = parsed.connectionTimeout();
            if (!connected.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new BackendUnavailableException(purpose + " could not connect to " + TargetUri.mask(target) + " within " + timeout, null);
            }
            return session;
        } catch (InterruptedException e) {
            session.close();
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted while connecting to " + TargetUri.mask(target) + " for " + purpose, e);
        } catch (RuntimeException e) {
            session.close();
            throw e;
        }
    }

    /** Returns the ZooKeeper handle; its paths are under the target's chroot. */
    ZooKeeper zooKeeper() {
        return zooKeeper;
    }

    /** Returns whether the session is connected read-only now (only if it was opened with {@code canBeReadOnly}). */
    boolean readOnly() {
        return readOnly.get();
    }

    /** Returns the session timeout the server granted. */
    Duration negotiatedTimeout() {
        return Duration.ofMillis(zooKeeper.getSessionTimeout());
    }

    /** Ends the session; an interrupt while waiting for the server's goodbye is kept on the thread. */
    @Override
    public void close() {
        try {
            zooKeeper.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
