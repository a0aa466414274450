package io.distlock.spring;

import io.distlock.Lease;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Locking around a returned Mono or Flux; loaded only when a method returns one, so only when Reactor is there. */
final class ReactorLocking {
    private ReactorLocking() {}

    static Object emptyMono() {
        return Mono.empty();
    }

    /**
     * A Mono or Flux that, for each subscription, takes the lock (blocking, on the bounded-elastic
     * scheduler), runs {@code invoke} with it and releases it when the publisher completes, fails or is
     * cancelled. Nothing is taken until someone subscribes.
     *
     * @param acquire takes the lock; null if it was not had in time
     * @param notAcquired the error when it was not had, or null to complete empty (SKIP)
     * @param invoke calls the method under the lock
     * @param release releases the lock
     * @param <R> what {@code acquire} returns
     */
    static <R> Object hold(Class<?> returnType, Callable<@Nullable R> acquire, @Nullable Supplier<Throwable> notAcquired,
            Function<R, @Nullable Object> invoke, Consumer<R> release) {
        /*
         * The lock is taken on a bounded-elastic thread. A subscription cancelled meanwhile interrupts that wait, and a
         * grant that still arrives is released here: Reactor drops a value produced after a cancel without a word
         * (subscribeOn over a callable), and a cancel that raced the grant's arrival in usingWhen left its closure
         * uncancelled - either way a lease held and renewed for nobody (a test cancelling right after the grant lost
         * it in 12 of 40 runs). Once delivered, the inner publisher's doFinally releases it on completion, error or
         * cancel, also a cancel that came before the inner subscription (flatMap then cancels it at once).
         */
        Mono<R> acquired = Mono.<R>create(sink -> {
            java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
            reactor.core.Disposable task = Schedulers.boundedElastic().schedule(() -> {
                R held;
                try {
                    held = acquire.call();
                } catch (Throwable t) {
                    if (!cancelled.get()) {
                        sink.error(t);
                    }
                    return;
                }
                if (held == null) {
                    sink.success();
                } else if (cancelled.get()) {
                    release.accept(held); // nobody wants it any more
                } else {
                    sink.success(held);
                    if (cancelled.get()) {
                        // cancelled while it was delivered: flatMap cancels an inner subscription that comes after its
                        // cancel, whose doFinally releases; if it never got that far, release here (release is idempotent)
                        release.accept(held);
                    }
                }
            });
            sink.onCancel(() -> {
                cancelled.set(true);
                task.dispose(); // interrupts a wait for the lock
            });
        });
        acquired = acquired.switchIfEmpty(Mono.defer(() -> notAcquired == null ? Mono.empty() : Mono.error(notAcquired.get())));
        if (ReactorSupport.isMono(returnType)) {
            return acquired.flatMap(held -> Mono.from(guarded(held, invoke, release, true)));
        }
        return acquired.flatMapMany(held -> guarded(held, invoke, release, false));
    }

    /** The method's publisher under {@code held}, releasing it once whatever ends the subscription. */
    private static <R> Publisher<?> guarded(R held, Function<R, @Nullable Object> invoke, Consumer<R> release, boolean mono) {
        java.util.concurrent.atomic.AtomicBoolean released = new java.util.concurrent.atomic.AtomicBoolean();
        Runnable releaseOnce = () -> {
            if (released.compareAndSet(false, true)) {
                release.accept(held);
            }
        };
        Publisher<?> inner;
        try {
            inner = publisher(invoke.apply(held));
        } catch (RuntimeException | Error e) {
            releaseOnce.run();
            throw e;
        }
        return mono ? Mono.from(inner).doFinally(signal -> releaseOnce.run()) : Flux.from(inner).doFinally(signal -> releaseOnce.run());
    }

    /**
     * distlock-fencing's {@code FencingContext.REACTOR_CONTEXT_KEY}, spelled out (that module is optional here): under it
     * the publisher also carries its lease's token, which the fencing WebClient filter sends.
     */
    static final String FENCING_TOKEN_KEY = "io.distlock.fencing.token";

    /** Puts the lease into a returned publisher's Reactor context. */
    static Object withLease(Object publisher, Lease lease) {
        if (publisher instanceof Mono<?> mono) {
            return mono.contextWrite(context -> context.put(LockContext.REACTOR_CONTEXT_KEY, lease).put(FENCING_TOKEN_KEY, lease.fencingToken()));
        }
        if (publisher instanceof Flux<?> flux) {
            return flux.contextWrite(context -> context.put(LockContext.REACTOR_CONTEXT_KEY, lease).put(FENCING_TOKEN_KEY, lease.fencingToken()));
        }
        return publisher;
    }

    static Object error(Throwable error) {
        return Mono.error(error);
    }

    private static Publisher<?> publisher(@Nullable Object result) {
        return result == null ? Mono.empty() : (Publisher<?>) result;
    }
}
