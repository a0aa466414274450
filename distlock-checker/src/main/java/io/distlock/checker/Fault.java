package io.distlock.checker;

/**
 * A fault the nemesis injected.
 *
 * @param kind what was done
 * @param process the process it targeted, or -1 if it hit a server
 * @param startNanos when it began (same clock as the events)
 * @param endNanos when it was healed (equal to start for instant faults such as kill)
 * @param description what was done, for the report
 */
public record Fault(FaultKind kind, int process, long startNanos, long endNanos, String description) {
    public Fault {
        if (endNanos - startNanos < 0) {
            throw new IllegalArgumentException("fault ends before it starts: " + description);
        }
    }

    boolean overlaps(long from, long to) {
        return startNanos - to <= 0 && from - endNanos <= 0;
    }
}
