package io.distlock.shedlock;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.jspecify.annotations.Nullable;

/**
 * A ShedLock {@link LockProvider} on a distlock {@link LockClient}: {@code @SchedulerLock} jobs (and ShedLock's
 * {@code LockingTaskExecutor}) run on any distlock backend by changing one bean, with ShedLock's rules kept.
 *
 * <pre>{@code
 * @Bean
 * LockProvider lockProvider(LockClient locks) {
 *     return new DistlockLockProvider(locks);
 * }
 * }</pre>
 *
 * <ul>
 *   <li>One attempt, no wait: a lock held elsewhere gives no lock, and the job is skipped.</li>
 *   <li>{@code lockAtMostFor} is the lease, and it is not renewed: a job that runs longer loses the lock then, as with
 *       every ShedLock provider.</li>
 *   <li>{@code lockAtLeastFor}: an unlock before it leaves the lock held on the server until then
 *       ({@link Lease#expireAfter}), whatever happens to this application meanwhile. A backend that cannot keep a lock
 *       without its client (ZooKeeper, etcd) has the lease closed when it ends instead (tested on Redis and
 *       PostgreSQL only).</li>
 *   <li>{@code extend(lockAtMostFor, lockAtLeastFor)} ({@link ExtensibleLockProvider}, ShedLock's
 *       {@code LockExtender}): the lease is renewed for the new lockAtMostFor from now, or the extend comes back empty if
 *       the lock was lost meanwhile.</li>
 *   <li>The lease's fencing token is {@link #currentFencingToken()} while the job runs on the locking thread.</li>
 * </ul>
 *
 * <p>Lock names are ShedLock's names, in the client's namespace.
 */
public final class DistlockLockProvider implements ExtensibleLockProvider {
    /*
     * ShedLock calls lock() on the job's thread, runs the job and calls unlock() on the same thread: the current lease of
     * that thread is the lock the job holds. The lease is detached (tryAcquireDetached): ShedLock's unlock may come from
     * another thread in LockingTaskExecutor's async uses.
     */
    private static final ThreadLocal<@Nullable Lease> CURRENT = new ThreadLocal<>();
    private static final ScheduledExecutorService LATER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "distlock-shedlock-unlock");
        thread.setDaemon(true);
        return thread;
    });

    private final LockClient client;

    /** Locks on {@code client}'s backend; the provider does not close it. */
    public DistlockLockProvider(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /**
     * Takes lock {@code configuration.getName()} once, for {@code lockAtMostFor}, without renewals.
     *
     * @return the lock, or empty if it is held elsewhere (or this thread was interrupted: its flag stays set)
     * @throws io.distlock.BackendUnavailableException if the backend does not answer
     */
    @Override
    public Optional<SimpleLock> lock(LockConfiguration configuration) {
        LockOptions options = LockOptions.builder().leaseTime(configuration.getLockAtMostFor()).autoRenew(false).build();
        Optional<Lease> lease;
        try {
            lease = client.getLock(configuration.getName(), options).tryAcquireDetached(Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        lease.ifPresent(CURRENT::set);
        return lease.map(held -> new DistlockSimpleLock(held, configuration));
    }

    /** Returns the fencing token of the lock the job on this thread holds, if it holds one of this provider's. */
    public static Optional<Long> currentFencingToken() {
        Lease lease = CURRENT.get();
        return lease == null || !lease.isValid() ? Optional.empty() : Optional.of(lease.fencingToken());
    }

    /**
     * A held lock, released as ShedLock says: not before {@code lockAtLeastFor}. Once unlocked or extended it is spent,
     * as ShedLock's own locks are: a second unlock or extend throws {@link IllegalStateException}.
     */
    private static final class DistlockSimpleLock implements SimpleLock {
        private final Lease lease;
        private final LockConfiguration configuration;
        private final AtomicBoolean spent = new AtomicBoolean();

        DistlockSimpleLock(Lease lease, LockConfiguration configuration) {
            this.lease = lease;
            this.configuration = configuration;
        }

        @Override
        public void unlock() {
            spend();
            if (CURRENT.get() == lease) {
                CURRENT.remove();
            }
            Duration keep = Duration.between(ClockProvider.now(), configuration.getLockAtLeastUntil());
            if (keep.isNegative() || keep.isZero() || !lease.isValid()) {
                lease.close();
            } else if (!lease.expireAfter(keep)) {
                LATER.schedule(lease::close, keep.toNanos(), TimeUnit.NANOSECONDS); // a session-bound backend: only while we run
            }
        }

        /**
         * Keeps the lock for {@code lockAtMostFor} from now (the lease is renewed for it) and returns the lock to unlock
         * from now on, with {@code lockAtLeastFor} from now; empty if the lock was lost meanwhile (its lockAtMostFor ran
         * out, or it was taken over).
         */
        @Override
        public Optional<SimpleLock> extend(Duration lockAtMostFor, Duration lockAtLeastFor) {
            spend();
            LockConfiguration extended = new LockConfiguration(ClockProvider.now(), configuration.getName(), lockAtMostFor, lockAtLeastFor);
            if (!lease.isValid() || !lease.renew(lockAtMostFor)) {
                return Optional.empty();
            }
            return Optional.of(new DistlockSimpleLock(lease, extended));
        }

        private void spend() {
            if (!spent.compareAndSet(false, true)) {
                throw new IllegalStateException("lock '" + configuration.getName() + "' was unlocked or extended already");
            }
        }

        @Override
        public String toString() {
            return "DistlockSimpleLock[" + configuration.getName() + ", token " + lease.fencingToken() + "]";
        }
    }
}
