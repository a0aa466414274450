package io.distlock.internal;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockListener;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Tells a client's {@link LockListener}s what happens to its acquisitions; a listener's failure is logged, never passed on. */
final class LockEvents {
    private static final Logger log = LoggerFactory.getLogger(LockEvents.class);

    private final List<LockListener> listeners;

    LockEvents(List<LockListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    boolean hasListeners() {
        return !listeners.isEmpty();
    }

    void acquired(Acquisition acquisition) {
        tell(acquisition, "acquired", (listener, lease) -> listener.acquired(lease));
    }

    void renewed(Acquisition acquisition) {
        tell(acquisition, "renewed", (listener, lease) -> listener.renewed(lease));
    }

    void renewalFailed(Acquisition acquisition, Throwable error) {
        tell(acquisition, "renewalFailed", (listener, lease) -> listener.renewalFailed(lease, error));
    }

    void lost(Acquisition acquisition, LeaseLostException loss) {
        tell(acquisition, "lost", (listener, lease) -> listener.lost(lease, loss));
    }

    void ended(Acquisition acquisition) {
        tell(acquisition, "ended", (listener, lease) -> listener.ended(lease));
    }

    private interface Call {
        void on(LockListener listener, Lease lease);
    }

    private void tell(Acquisition acquisition, String event, Call call) {
        if (!hasListeners()) {
            return;
        }
        Lease lease = acquisition.view();
        for (LockListener listener : listeners) {
            try {
                call.on(listener, lease);
            } catch (RuntimeException e) {
                log.warn("lock listener {} failed on {} of lock '{}'", listener, event, acquisition.lockName(), e);
            }
        }
    }
}
