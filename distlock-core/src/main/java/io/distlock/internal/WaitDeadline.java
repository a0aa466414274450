package io.distlock.internal;

/** How long a caller is still willing to wait, on the engine's clock; {@link LockAcquirer#FOREVER} waits without end. */
final class WaitDeadline {
    private final EngineClock clock;
    private final long deadlineNanos;
    private final boolean forever;

    private WaitDeadline(EngineClock clock, long waitNanos) {
        this.clock = clock;
        this.forever = waitNanos == LockAcquirer.FOREVER;
        this.deadlineNanos = forever ? 0 : clock.nanoTime() + waitNanos;
    }

    /** Starts the wait now. */
    static WaitDeadline start(EngineClock clock, long waitNanos) {
        return new WaitDeadline(clock, waitNanos);
    }

    /** Returns the nanoseconds left ({@link Long#MAX_VALUE} when waiting forever); zero or less when the wait ran out. */
    long left() {
        return forever ? Long.MAX_VALUE : deadlineNanos - clock.nanoTime();
    }

    /** Returns what is left in the form the granters take: {@link LockAcquirer#FOREVER}, or the nanoseconds left (at least 0). */
    long remainingWait() {
        return forever ? LockAcquirer.FOREVER : Math.max(0, left());
    }
}
