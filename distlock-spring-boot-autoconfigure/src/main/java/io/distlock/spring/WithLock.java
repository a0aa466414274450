package io.distlock.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the method while holding a distributed lock of the application's {@code LockClient}.
 *
 * <pre>{@code
 * @WithLock(name = "stock", key = "#order.sku", waitTime = "5s")
 * @Transactional
 * public void deduct(Order order) {
 *     long token = LockContext.currentLease().fencingToken();
 *     jdbc.update("UPDATE stock SET qty = qty - ?, fence = ? WHERE sku = ? AND fence < ?", order.qty(), token, order.sku(), token);
 * }
 * }</pre>
 *
 * <p>The lock is named {@code name + ":" + key}, or just {@code name} without a key. It is taken before
 * the method and any transaction start (the advice is ordered outside {@code @Transactional}), and
 * released after the method returned and its transaction committed or rolled back. For a method
 * returning {@code CompletableFuture} or {@code CompletionStage}, it is released when the returned stage
 * completes; a (Reactor) {@code Mono} or {@code Flux} takes it per subscription and releases it when it
 * terminates. docs/spring-boot.md has every rule. Within one call chain the lock is reentrant: a nested
 * {@code @WithLock} method on the same name and thread takes another hold on the same lease.
 *
 * <p>Works on Spring beans called through their proxy: a call from the bean to itself is not advised.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface WithLock {
    /** What to do when the lock cannot be had within {@link #waitTime}. */
    enum OnFailure {
        /** Throw {@link io.distlock.LockAcquireTimeoutException}. */
        THROW,
        /**
         * Do not run the method: return null, an empty {@code Optional}, a completed future of null or an
         * empty {@code Mono}/{@code Flux} (for a primitive return type, its zero). For a {@code @Scheduled} job on several
         * instances: one runs it, the others skip.
         */
        SKIP
    }

    /** What to do when the lease is lost while the method runs. */
    enum OnLost {
        /** Log at WARN with the reason (and count it, with Micrometer); the method runs on. */
        LOG,
        /** Also interrupt the thread running the method (synchronous methods only). */
        INTERRUPT
    }

    /** The lock's name; default {@code SimpleClassName.method}. */
    String name() default "";

    /**
     * A SpEL expression for the per-call part of the name, over the arguments ({@code #sku}, {@code #p0},
     * {@code #a0}, {@code #order.id}), {@code #root.method}, and beans ({@code @ids.next()}). Empty: no key.
     * A null result is an error.
     */
    String key() default "";

    /**
     * How long to wait for the lock, e.g. {@code "5s"}, {@code "500ms"}, {@code "PT1M"}; {@code "0s"} tries
     * once. Default: {@code distlock.wait-time} (itself 0s by default).
     */
    String waitTime() default "";

    /**
     * The lease, renewed while the method runs, e.g. {@code "30s"}. Default: the client's ({@code distlock.lease-time}).
     * It replaces the lease alone: the client's other lock options ({@code distlock.local-handoffs}) still apply.
     */
    String leaseTime() default "";

    /** Throw or skip when the lock is not had within {@link #waitTime}. */
    OnFailure onFailure() default OnFailure.THROW;

    /**
     * Hold the lock at least this long after the method started (the release is delayed, the method is
     * not): a scheduled job that runs fast on one instance then keeps another instance whose clock fires a
     * little later from running it again in the same period. {@code "0s"}: release at once.
     */
    String minHold() default "0s";

    /** What to do when the lease is lost while the method runs. */
    OnLost onLost() default OnLost.LOG;
}
