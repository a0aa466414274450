package io.distlock.internal;

import java.util.function.BooleanSupplier;

/** Waits (in real time, at most 10 s) for something another thread does, such as telling a listener. */
final class Awaiting {
    private Awaiting() {}

    static void until(BooleanSupplier condition) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("condition not met within 10 s");
            }
            Thread.onSpinWait();
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
