package io.distlock.benchmarks;

import io.distlock.DistributedReadWriteLock;
import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.cli.bench.Contender;
import io.distlock.LockClients;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RLock;
import org.redisson.api.RPermitExpirableSemaphore;
import org.redisson.api.RReadWriteLock;
import org.redisson.api.RedissonClient;

/**
 * Contenders for the lock kinds beyond the mutex, run in the c16 scenario (16 threads, one name):
 * a read-write lock under a read-heavy mix (each thread's every tenth cycle writes, the other nine read)
 * and a semaphore of {@value #PERMITS} permits. Each kind next to Redisson's nearest: RReadWriteLock, and
 * RPermitExpirableSemaphore with a lease on every permit (its way of getting a crashed holder's permit back;
 * distlock's permits are leases renewed by the watchdog).
 */
final class KindContenders {
    /** The read-write contenders: every tenth cycle of a thread writes. */
    static final List<String> READ_WRITE = List.of("distlock-rw", "redisson-rw");
    /** The semaphore contenders, on {@value #PERMITS} permits. */
    static final List<String> SEMAPHORE = List.of("distlock-semaphore", "redisson-semaphore");
    /** Permits of the semaphore scenario. */
    static final int PERMITS = 4;
    /** One write in this many cycles of a thread. */
    static final int WRITE_EVERY = 10;
    /** The lease of a Redisson permit: distlock's default lease, so a crashed holder's permit returns alike. */
    private static final long REDISSON_PERMIT_LEASE_SECONDS = 30;

    private KindContenders() {}

    /**
     * The kinds on ZooKeeper and etcd, next to the same kinds on Redis (issue 30); only when named. Each id is
     * {@code distlock-<backend>-<kind>}.
     */
    static final List<String> ZOOKEEPER = List.of("distlock-zookeeper-fair", "distlock-zookeeper-rw", "distlock-zookeeper-semaphore");
    static final List<String> ETCD = List.of("distlock-etcd-fair", "distlock-etcd-rw", "distlock-etcd-semaphore");

    /** Returns the contender {@code id} of {@link #ZOOKEEPER} or {@link #ETCD} on the registry {@code target}. */
    static Contender onTarget(String id, String target) {
        return onTarget(id, target, "bench");
    }

    /** Returns the kind contender {@code id} (its id ends in -fair, -rw or -semaphore) on {@code target}, in {@code namespace}. */
    static Contender onTarget(String id, String target, String namespace) {
        LockClient client = LockClients.open(target, namespace);
        if (id.endsWith("-fair")) {
            return new DistlockFair(id, client);
        }
        return id.endsWith("-rw") ? new DistlockReadWrite(id, client) : new DistlockSemaphore(id, client);
    }

    static Contender create(String id, String redisUri) {
        return switch (id) {
            case "distlock-rw" -> new DistlockReadWrite(id, LockClients.open(redisUri));
            case "distlock-semaphore" -> new DistlockSemaphore(id, LockClients.open(redisUri));
            case "redisson-rw" -> new RedissonReadWrite(Contenders.redissonOn(redisUri));
            case "redisson-semaphore" -> new RedissonSemaphore(Contenders.redissonOn(redisUri));
            default -> throw new IllegalArgumentException("unknown implementation '" + id + "'");
        };
    }

    /** Counts a thread's cycles: is this one a write? */
    private static final class Mix {
        private final ThreadLocal<int[]> cycles = ThreadLocal.withInitial(() -> new int[1]);
        private final ThreadLocal<Boolean> writing = new ThreadLocal<>();

        /** Decides the next cycle's mode and remembers it for the release. */
        boolean nextIsWrite() {
            boolean write = cycles.get()[0]++ % WRITE_EVERY == WRITE_EVERY - 1;
            writing.set(write);
            return write;
        }

        boolean wasWrite() {
            return Boolean.TRUE.equals(writing.get());
        }
    }

    private static final class DistlockReadWrite implements Contender {
        private final String id;
        private final LockClient client;
        private final Map<String, DistributedReadWriteLock> locks = new ConcurrentHashMap<>();
        private final Mix mix = new Mix();

        DistlockReadWrite(String id, LockClient client) {
            this.id = id;
            this.client = client;
        }

        @Override
        public String id() {
            return id;
        }

        private DistributedReadWriteLock of(String name) {
            return locks.computeIfAbsent(name, client::getReadWriteLock);
        }

        @Override
        public void lock(String lockName) {
            DistributedReadWriteLock lock = of(lockName);
            (mix.nextIsWrite() ? lock.writeLock() : lock.readLock()).lock();
        }

        @Override
        public void unlock(String lockName) {
            DistributedReadWriteLock lock = of(lockName);
            (mix.wasWrite() ? lock.writeLock() : lock.readLock()).unlock();
        }

        @Override
        public void close() {
            client.close();
        }
    }

    private static final class RedissonReadWrite implements Contender {
        private final RedissonClient redisson;
        private final Mix mix = new Mix();

        RedissonReadWrite(RedissonClient redisson) {
            this.redisson = redisson;
        }

        @Override
        public String id() {
            return "redisson-rw";
        }

        private RLock of(String name, boolean write) {
            RReadWriteLock lock = redisson.getReadWriteLock("rw:" + name);
            return write ? lock.writeLock() : lock.readLock();
        }

        @Override
        public void lock(String lockName) {
            of(lockName, mix.nextIsWrite()).lock();
        }

        @Override
        public void unlock(String lockName) {
            of(lockName, mix.wasWrite()).unlock();
        }

        @Override
        public void close() {
            redisson.shutdown();
        }
    }

    private static final class DistlockSemaphore implements Contender {
        private final String id;
        private final LockClient client;
        private final Map<String, DistributedSemaphore> semaphores = new ConcurrentHashMap<>();
        private final ThreadLocal<Deque<Lease>> held = ThreadLocal.withInitial(ArrayDeque::new);

        DistlockSemaphore(String id, LockClient client) {
            this.id = id;
            this.client = client;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void lock(String lockName) throws InterruptedException {
            held.get().push(semaphores.computeIfAbsent(lockName, n -> client.getSemaphore(n, PERMITS)).acquire());
        }

        @Override
        public void unlock(String lockName) {
            held.get().pop().close();
        }

        @Override
        public void close() {
            client.close();
        }
    }

    private static final class RedissonSemaphore implements Contender {
        private final RedissonClient redisson;
        private final Map<String, RPermitExpirableSemaphore> semaphores = new ConcurrentHashMap<>();
        private final ThreadLocal<Deque<String>> held = ThreadLocal.withInitial(ArrayDeque::new);

        RedissonSemaphore(RedissonClient redisson) {
            this.redisson = redisson;
        }

        @Override
        public String id() {
            return "redisson-semaphore";
        }

        private RPermitExpirableSemaphore of(String name) {
            return semaphores.computeIfAbsent(name, n -> {
                RPermitExpirableSemaphore semaphore = redisson.getPermitExpirableSemaphore("semaphore:" + n);
                semaphore.trySetPermits(PERMITS);
                return semaphore;
            });
        }

        @Override
        public void lock(String lockName) throws InterruptedException {
            held.get().push(of(lockName).acquire(REDISSON_PERMIT_LEASE_SECONDS, TimeUnit.SECONDS));
        }

        @Override
        public void unlock(String lockName) {
            of(lockName).release(held.get().pop());
        }

        @Override
        public void close() {
            redisson.shutdown();
        }
    }

    /** distlock's fair lock on any backend of the registry. */
    private static final class DistlockFair implements Contender {
        private final String id;
        private final LockClient client;

        DistlockFair(String id, LockClient client) {
            this.id = id;
            this.client = client;
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void lock(String lockName) {
            client.getFairLock(lockName).lock();
        }

        @Override
        public void unlock(String lockName) {
            client.getFairLock(lockName).unlock();
        }

        @Override
        public void close() {
            client.close();
        }
    }
}
