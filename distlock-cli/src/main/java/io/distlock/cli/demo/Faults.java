package io.distlock.cli.demo;

import io.distlock.servers.Signal;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Random;

/**
 * The faults the demo injects inside the critical section: slow work after reading the stock (this thread stalls
 * longer than the lease), and a process pause right before the write, after the holder checked its lease (the whole
 * worker JVM is frozen with SIGSTOP and thawed with SIGCONT, like a long GC pause). Seeded, so runs repeat.
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

    /**
     * Called once per sale after reading the stock, before any lease check: stalls this thread past the lease now and
     * then (the watchdog keeps renewing meanwhile); returns whether it did.
     */
    boolean slowWork() throws InterruptedException {
        boolean stall;
        synchronized (this) {
            stall = random.nextDouble() < stallRate;
        }
        if (stall) {
            Thread.sleep(leaseMs * 3 / 2);
        }
        return stall;
    }

    /**
     * Called once per sale right before the write, after any lease check: once per worker, freezes the whole JVM for
     * 2.5 leases (its watchdog too, so the lease ends on the server), as a GC pause at the worst moment would; returns
     * whether it did. Only a fenced store can refuse the write that follows.
     */
    boolean pauseBeforeWrite() throws InterruptedException {
        boolean pause;
        synchronized (this) {
            salesSeen++;
            pause = !paused && salesSeen >= pauseAtSale;
            paused |= pause;
        }
        if (pause) {
            pauseProcess(leaseMs * 5 / 2);
        }
        return pause;
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
