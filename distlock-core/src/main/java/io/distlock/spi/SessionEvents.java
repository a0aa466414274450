package io.distlock.spi;

/**
 * Capability: the backend's leases are bound to a session (ZooKeeper) whose state it reports, so
 * that the engine can stop trusting leases the moment the connection is in doubt.
 */
public interface SessionEvents {

    /** Registers the engine's listener; called once, when the client is built. */
    void addSessionListener(SessionListener listener);

    /** What the backend reports about its session. Calls must be cheap and must not block. */
    interface SessionListener {

        /** The connection is in doubt: leases must not be trusted until {@link #reconnected()}. */
        void suspended();

        /** The same session continues: leases held before {@link #suspended()} are trusted again. */
        void reconnected();

        /** The session ended: every lease of this client is lost. */
        void lost(String reason);
    }
}
