package io.distlock.cli.demo;

import io.distlock.servers.Signal;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Random;

/**
 * The faults the demo injects inside the critical section, between reading the stock and writing it:
 * slow work (this thread stalls longer than the lease) and a process pause (the whole worker JVM is
 * frozen with SIGSTOP and thawed with SIGCONT, like a long GC pause). Seeded, so runs repeat.
 */
final class Faults {
    private final Random random;
    private final long leaseMs;
    private final double stallRate;
    private final int pauseAtSale;
    private int salesSeen;
    private boolean paused;

    Faults(long seed, long leaseMs, double stallRate) {
        this.random = new Random(seed);
        this.leaseMs = leaseMs;
        this.stallRate = stallRate;
        this.pauseAtSale = 2 + random.nextInt(4);
    }

    /** Called once per sale in the critical section; returns the fault injected, or "" for none. */
    String duringSale() throws InterruptedException {
        String fault = decide();
        if (fault.equals("process-pause")) {
            pauseProcess(leaseMs * 5 / 2);
        } else if (fault.equals("slow-work")) {
            Thread.sleep(leaseMs * 3 / 2);
        }
        return fault;
    }

    private synchronized String decide() {
        salesSeen++;
        if (!paused && salesSeen >= pauseAtSale) {
            paused = true;
            return "process-pause";
        }
        return random.nextDouble() < stallRate ? "slow-work" : "";
    }

    /** The moment between a GET that says "mine" and the DEL that follows. */
    void betweenCheckAndDelete() throws InterruptedException {
        boolean stall;
        synchronized (this) {
            stall = random.nextDouble() < stallRate;
        }
        if (stall) {
            Thread.sleep(leaseMs * 3 / 2);
        }
    }

    /** Freezes this JVM for {@code millis}, like a long GC pause (SIGSTOP, then SIGCONT from a detached shell). */
    private static void pauseProcess(long millis) throws InterruptedException {
        try {
            Signal.pauseCurrentProcess(Duration.ofMillis(millis));
        } catch (UncheckedIOException e) {
            Thread.sleep(millis); // no kill(1) here: fall back to stalling this thread
        }
    }
}
