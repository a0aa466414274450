package io.distlock.spring;

import io.distlock.Lease;
import io.distlock.LockClient;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** A bean with every kind of @WithLock method the tests call. */
public class ShopService {
    /** An order, to key locks by a property ({@code #order.sku}). */
    public record Order(String sku, int quantity) {}

    final AtomicInteger inside = new AtomicInteger();
    final AtomicInteger maxInside = new AtomicInteger();
    final AtomicInteger runs = new AtomicInteger();
    final List<String> events = new CopyOnWriteArrayList<>();
    volatile CompletableFuture<String> pending = new CompletableFuture<>();

    private final JdbcTemplate jdbc;
    private final LockClient locks;
    private ShopService self;

    public ShopService(JdbcTemplate jdbc, LockClient locks) {
        this.jdbc = jdbc;
        this.locks = locks;
    }

    /** The bean's proxy, for calls that must go through the advice (a call to this is not advised). */
    public void self(ShopService proxy) {
        this.self = proxy;
    }

    // accessors: the test holds the proxy, whose own fields are not the bean's
    public int runs() {
        return runs.get();
    }

    public int maxInside() {
        return maxInside.get();
    }

    public List<String> events() {
        return events;
    }

    public CompletableFuture<String> pending() {
        return pending;
    }

    @WithLock(name = "stock", key = "#order.sku", waitTime = "20s")
    public String buy(Order order) throws InterruptedException {
        int now = inside.incrementAndGet();
        maxInside.accumulateAndGet(now, Math::max);
        Thread.sleep(5);
        inside.decrementAndGet();
        return LockContext.currentLease().lockName();
    }

    @WithLock(key = "#p0 + '-' + @skuSuffix")
    public String defaultName(String sku) {
        return LockContext.currentLease().lockName();
    }

    @WithLock(name = "busy", waitTime = "0s")
    public String throwWhenBusy() {
        runs.incrementAndGet();
        return "ran";
    }

    @WithLock(name = "busy", onFailure = WithLock.OnFailure.SKIP)
    public String skipWhenBusy() {
        runs.incrementAndGet();
        return "ran";
    }

    @WithLock(name = "busy", onFailure = WithLock.OnFailure.SKIP)
    public Optional<String> skipOptional() {
        runs.incrementAndGet();
        return Optional.of("ran");
    }

    @WithLock(name = "busy", onFailure = WithLock.OnFailure.SKIP)
    public int skipInt() {
        runs.incrementAndGet();
        return 42;
    }

    @WithLock(name = "busy", onFailure = WithLock.OnFailure.SKIP)
    public CompletableFuture<String> skipFuture() {
        runs.incrementAndGet();
        return CompletableFuture.completedFuture("ran");
    }

    @WithLock(name = "job", onFailure = WithLock.OnFailure.SKIP, minHold = "2s")
    public void quickJob() {
        runs.incrementAndGet();
    }

    @WithLock(name = "nightly", onFailure = WithLock.OnFailure.SKIP, minHold = "5s")
    public void nightlyJob() {
        runs.incrementAndGet();
    }

    @WithLock(name = "orders", key = "#id")
    @Transactional
    public void record(String id) {
        jdbc.update("INSERT INTO orders(id) VALUES (?)", id);
        String lockName = LockContext.currentLease().lockName();
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void afterCommit() {
                events.add("commit, lock held: " + locks.getLock(lockName).isLocked());
            }
        });
    }

    @WithLock(name = "outer")
    public long outer() {
        long token = LockContext.currentLease().fencingToken();
        long inner = self.inner();
        events.add("outer again: " + (LockContext.currentLease().fencingToken() == token));
        return inner == token ? token : -1;
    }

    @WithLock(name = "outer", waitTime = "0s")
    public long inner() {
        return LockContext.currentLease().fencingToken();
    }

    @WithLock(name = "async", key = "#sku")
    public CompletableFuture<String> async(String sku) {
        Lease lease = LockContext.currentLease();
        return pending.thenApply(value -> value + " under " + lease.lockName());
    }

    /** Runs {@code work} under a lease of its own (other options the client's), waiting up to 30 s for the lock. */
    @WithLock(name = "cohort", leaseTime = "7s", waitTime = "30s")
    public <T> T underItsOwnLease(java.util.function.Supplier<T> work) {
        return work.get();
    }

    @WithLock(name = "interruptible", leaseTime = "1s", onLost = WithLock.OnLost.INTERRUPT)
    public String runsUntilInterrupted() {
        events.add("started");
        try {
            TimeUnit.SECONDS.sleep(60);
            return "slept";
        } catch (InterruptedException e) {
            return "interrupted after " + LockContext.currentLease().isValid();
        }
    }

    /** Completes when the test says so, with the name of the lease in its Reactor context. */
    final reactor.core.publisher.Sinks.One<String> reactiveGate = reactor.core.publisher.Sinks.one();
    final AtomicInteger reactiveCalls = new AtomicInteger();

    @WithLock(name = "reactive", key = "#sku")
    public reactor.core.publisher.Mono<String> reactive(String sku) {
        reactiveCalls.incrementAndGet();
        return reactiveGate.asMono().flatMap(value -> reactor.core.publisher.Mono.deferContextual(context ->
                reactor.core.publisher.Mono.just(value + " under " + context.<Lease>get(LockContext.REACTOR_CONTEXT_KEY).lockName())));
    }

    @WithLock(name = "boundary")
    public String syncCallingAsync() {
        return self.asyncOnTheSameName().join();
    }

    @WithLock(name = "boundary")
    public CompletableFuture<String> asyncOnTheSameName() {
        return CompletableFuture.completedFuture("inner ran");
    }

    @WithLock(name = "boundary2")
    public CompletableFuture<String> asyncCallingSync() {
        return CompletableFuture.supplyAsync(() -> self.syncOnTheSameName());
    }

    @WithLock(name = "boundary2", waitTime = "0s")
    public String syncOnTheSameName() {
        return "inner ran";
    }

    @WithLock(name = "patient", waitTime = "20s")
    public reactor.core.publisher.Mono<String> patientMono() {
        reactiveCalls.incrementAndGet();
        return reactor.core.publisher.Mono.just("ran");
    }

    @WithLock(name = "busy", onFailure = WithLock.OnFailure.SKIP)
    public reactor.core.publisher.Mono<String> skipMono() {
        reactiveCalls.incrementAndGet();
        return reactor.core.publisher.Mono.just("ran");
    }

    @WithLock(name = "busy")
    public reactor.core.publisher.Flux<Integer> throwFlux() {
        reactiveCalls.incrementAndGet();
        return reactor.core.publisher.Flux.just(1, 2, 3);
    }

    public reactor.core.publisher.Sinks.One<String> reactiveGate() {
        return reactiveGate;
    }

    public int reactiveCalls() {
        return reactiveCalls.get();
    }

    @WithLock(key = "#order.sku")
    public void nullKey(Order order) {
        runs.incrementAndGet();
    }

    @WithLock(key = "#missing.sku")
    public void brokenKey(Order order) {}
}
