package io.distlock.checker;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * The faults a check run injects. Client faults hit one client process and work on every deployment
 * that supports them; server faults hit the deployment's servers, and each deployment says which it has.
 */
public enum FaultKind {
    /** SIGSTOP a client for longer than its lease, then SIGCONT (a GC pause). */
    PAUSE("pause", true),
    /** SIGKILL a client; a new process takes its place. */
    KILL("kill", true),
    /** Cut a client's connections for a while (through its own TCP proxy). */
    PARTITION("partition", true),
    /** SIGSTOP a client past its session timeout, so the servers expire its session. */
    EXPIRE("expire", true),
    /** Restart the lock server without persistence: every lock is gone. */
    RESTART("restart", false),
    /** Promote a replica and point every client at it; unreplicated writes are lost. */
    PROMOTE("promote", false),
    /** Kill the master; the Sentinels promote a replica. */
    FAILOVER("failover", false),
    /** Kill the master of the lock's cluster shard; the cluster promotes its replica. */
    SHARD_FAILOVER("shard-failover", false),
    /** Restart one RedLock node without persistence: it forgets its votes. */
    NODE_RESTART("node-restart", false),
    /** Kill a minority of RedLock nodes for a while. */
    NODES_DOWN("nodes-down", false),
    /** Kill one member of an ensemble for a while. */
    MEMBER("member", false),
    /** Kill the member that leads the cluster for a while; the others elect a new leader. */
    LEADER("leader", false),
    /** End every client session on the database server (pg_terminate_backend, KILL); clients reconnect. */
    CONNECTION_KILL("connection-kill", false);

    private final String id;
    private final boolean hitsClient;

    FaultKind(String id, boolean hitsClient) {
        this.id = id;
        this.hitsClient = hitsClient;
    }

    /** Returns the name used on the command line, in history files and reports, e.g. {@code shard-failover}. */
    public String id() {
        return id;
    }

    /** Returns whether the fault hits a client process (rather than the servers). */
    public boolean hitsClient() {
        return hitsClient;
    }

    /**
     * Returns the fault kind with this name.
     *
     * @throws IllegalArgumentException naming the known kinds
     */
    public static FaultKind fromId(String id) {
        for (FaultKind kind : values()) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("unknown fault '" + id + "'; known: "
                + Arrays.stream(values()).map(FaultKind::id).collect(Collectors.joining(", ")));
    }
}
