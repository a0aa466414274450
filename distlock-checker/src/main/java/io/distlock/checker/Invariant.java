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
     * (d) No two processes believed they held the lock at the same time; of shared holds (read locks,
     * semaphore permits), no more than the history's limit at once, and none with an exclusive hold.
     */
    OVERLAP("overlap", "no two processes held the lock at the same time (as each believed); shared holds (reads, permits) "
            + "only with each other, at most the permit count at once"),
    /** (e) After each fault heals, some process acquires within the lease time plus a bound. */
    LIVENESS("liveness", "after each fault heals, some process acquires within lease time plus the bound");

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
