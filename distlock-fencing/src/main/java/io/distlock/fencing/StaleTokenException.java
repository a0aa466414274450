package io.distlock.fencing;

/**
 * A write refused at the resource because a higher fencing token has been seen there: the lock was granted to a
 * newer holder after this one's lease ended (a pause, a lost renewal), and this holder's write would have overwritten
 * the newer holder's. The write was not made. The caller no longer holds the lock; retrying with the same token
 * is refused again.
 */
public class StaleTokenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String resource;
    private final long presented;
    private final long highestSeen;

    /**
     * Creates the refusal of {@code presented} at {@code resource}, where {@code highestSeen} has been seen.
     *
     * @param resource what the write was for, as the guard names it (a table and row, a key, a path)
     */
    public StaleTokenException(String resource, long presented, long highestSeen) {
        super("stale fencing token for " + resource + ": presented " + presented + ", but " + highestSeen
                + " has been seen there; the lock was granted to a newer holder after this one's lease ended, and this write was refused");
        this.resource = resource;
        this.presented = presented;
        this.highestSeen = highestSeen;
    }

    /** Returns what the write was for, as the guard names it. */
    public String resource() {
        return resource;
    }

    /** Returns the token the refused write presented. */
    public long presented() {
        return presented;
    }

    /** Returns the highest token the resource had seen when it refused the write. */
    public long highestSeen() {
        return highestSeen;
    }
}
