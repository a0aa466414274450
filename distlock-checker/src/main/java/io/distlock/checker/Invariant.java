package io.distlock.checker;

/** What the checker verifies; each lock claims a subset. */
public enum Invariant {
    /** (a) A completed acquisition's token is lower than that of every acquisition invoked after it; no token twice. */
    TOKENS("tokens", "fencing tokens strictly increase in real-time order and none is issued twice"),
    /** (b) The fenced store accepted writes in non-decreasing token order, none from a holder told its lease was lost. */
    FENCED_WRITES("fenced-writes", "accepted fenced writes have non-decreasing tokens; none came from a holder already told its lease was lost"),
    /** (c) Every acknowledged increment of the unfenced register survives. */
    LOST_UPDATES("lost-updates", "every acknowledged increment of the unfenced register is present at the end"),
    /**
     * (d) No two processes held the lock at the same time with valid leases; of shared holds (read locks,
     * semaphore permits), no more than the history's limit at once, and none with an exclusive hold. An
     * overlap is allowed only where the history shows why ({@link Overlap.Excuse}): a holder was past its
     * recorded lease, or a fault after which the deployment does not promise its locks came between.
     */
    OVERLAP("overlap", "no two processes held the lock at the same time with valid leases; shared holds (reads, permits) "
            + "only with each other, at most the permit count at once; allowed only past a holder's recorded lease end "
            + "or across a fault the deployment does not promise to survive"),
    /** (e) After each fault heals, some process acquires within the lease time plus a bound. */
    LIVENESS("liveness", "after each fault heals, some process acquires within lease time plus the bound"),
    /**
     * (f) A lock that grants in arrival order does: no acquisition is granted while a waiter that was surely
     * queued at the server before it arrived still waits (pairs where one of the two is exclusive), unless a
     * fault that can reorder the queue came between.
     */
    ORDER("order", "grants follow arrival order: nobody is granted ahead of a waiter that was surely queued before it "
            + "arrived, unless a fault that reorders the queue came between"),
    /**
     * (g) The history is complete: every write the fenced store accepted was recorded as invoked by the process the
     * store names, with the same token. The other invariants judge the recorded events; a process whose events went
     * missing while it went on working would make them judge a different run. Claimed by every lock: a run whose
     * recording is incomplete fails, whatever the other invariants say.
     */
    RECORDING("recording", "the history is complete: every write the fenced store accepted was recorded as invoked by the "
            + "process, and with the token, the store names");

    private final String id;
    private final String statement;

    Invariant(String id, String statement) {
        this.id = id;
        this.statement = statement;
    }

    /** Returns the short name used in reports. */
    public String id() {
        return id;
    }

    /** Returns what the invariant says. */
    public String statement() {
        return statement;
    }
}
