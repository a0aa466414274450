package io.distlock.testkit;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.LockOptions;
import io.distlock.servers.ChildJvm;
import io.distlock.servers.ParentJvm;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM that acquires a lock and holds it (with renewal) until it is killed: the "holder
 * crashed without releasing" case. It prints {@code HELD <fencing token>} once it holds the lock, and
 * ends by itself only when the test JVM goes away.
 */
public final class HolderProcess implements AutoCloseable {
    private static final String HELD = "HELD ";

    private final ChildJvm jvm;

    private HolderProcess(ChildJvm jvm) {
        this.jvm = jvm;
    }

    /** Starts a holder JVM with this JVM's class path; it acquires the plain lock {@code lockName} through {@code factory}'s client. */
    public static HolderProcess start(Class<? extends LockClientFactory> factory, String target, String lockName, Duration lease) {
        return start(factory, target, LockKind.LOCK, lockName, lease);
    }

    /** Starts a holder JVM with this JVM's class path; it acquires the lock of {@code kind} named {@code lockName}. */
    public static HolderProcess start(Class<? extends LockClientFactory> factory, String target, LockKind kind, String lockName, Duration lease) {
        return new HolderProcess(ChildJvm.of(HolderProcess.class).jvmFlags(ChildJvm.QUICK_START_FLAGS)
                .args(factory.getName(), target, lockName, Long.toString(lease.toMillis()), kind.name()).start());
    }

    /**
     * Waits until the holder reports holding the lock and returns its fencing token.
     *
     * @throws IllegalStateException with the holder's output if it does not report in time
     */
    public long awaitHeldToken(Duration timeout) throws InterruptedException {
        return Long.parseLong(jvm.awaitLine(line -> line.startsWith(HELD), timeout).substring(HELD.length()).trim());
    }

    /** Freezes the holder JVM (SIGSTOP): it neither renews nor releases until {@link #resume()}. */
    public void pause() {
        signal("STOP");
    }

    /** Thaws a paused holder JVM (SIGCONT). */
    public void resume() {
        signal("CONT");
    }

    private void signal(String signal) {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(jvm.pid())).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot send SIG" + signal + " to the holder", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Kills the holder with SIGKILL: it releases nothing. */
    public void kill() throws InterruptedException {
        jvm.kill();
    }

    /** Kills the holder if it still runs. */
    @Override
    public void close() {
        try {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The holder JVM. Arguments: factory class, target, lock name, lease millis, lock kind. */
    public static void main(String[] args) throws Exception {
        ParentJvm.exitWhenInputCloses();
        LockClientFactory factory = (LockClientFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        LockClient client = factory.create(args[1]);
        LockOptions options = LockOptions.builder().leaseTime(Duration.ofMillis(Long.parseLong(args[3]))).build();
        Lease lease = ExclusiveLocks.of(LockKind.valueOf(args[4]), client, args[2], options).acquire();
        System.out.println(HELD + lease.fencingToken());
        System.out.flush();
        Thread.sleep(TimeUnit.MINUTES.toMillis(10)); // killed long before
    }
}
