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
         * The lock is taken on a bounded-elastic thread in Mono.create, not subscribeOn over a callable: that drops a
         * value produced after a cancel without a word, and the lease stayed held and renewed for nobody (a test that
         * cancels right after the grant lost it in 12 of 40 runs). Here a cancel interrupts a wait for the lock, and a
         * grant that arrives after it, or while it is being delivered, is released by the acquiring thread. Once
         * delivered, usingWhen releases it when the publisher completes, fails or is cancelled, before the terminal
         * signal goes on (a caller that sees the publisher complete finds the lock free). Each hold is released once.
         */
        Mono<Hold<R>> acquired = Mono.<Hold<R>>create(sink -> {
            java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
            reactor.core.Disposable task = Schedulers.boundedElastic().schedule(() -> {
                R taken;
                try {
                    taken = acquire.call();
                } catch (Throwable t) {
                    if (!cancelled.get()) {
                        sink.error(t);
                    }
                    return;
                }
                if (taken == null) {
                    sink.success();
                    return;
                }
                Hold<R> hold = new Hold<>(taken, release);
                if (cancelled.get()) {
                    hold.release(); // nobody wants it any more
                    return;
                }
                sink.success(hold);
                if (cancelled.get()) {
                    hold.release(); // cancelled while it was delivered, perhaps before usingWhen could see to it
                }
            });
            sink.onCancel(() -> {
                cancelled.set(true);
                task.dispose(); // interrupts a wait for the lock
            });
        });
        acquired = acquired.switchIfEmpty(Mono.defer(() -> notAcquired == null ? Mono.empty() : Mono.error(notAcquired.get())));
        Function<Hold<R>, Mono<?>> cleanup = hold -> Mono.fromRunnable(hold::release);
        if (ReactorSupport.isMono(returnType)) {
            return Mono.usingWhen(acquired, hold -> Mono.from(publisher(invoke.apply(hold.held()))), cleanup);
        }
        return Flux.usingWhen(acquired, hold -> publisher(invoke.apply(hold.held())), cleanup);
    }

    /** A lock held for one subscription, released once whoever gets there first. */
    private record Hold<R>(R held, Consumer<R> releaser, java.util.concurrent.atomic.AtomicBoolean released) {
        Hold(R held, Consumer<R> releaser) {
            this(held, releaser, new java.util.concurrent.atomic.AtomicBoolean());
        }

        void release() {
            if (released.compareAndSet(false, true)) {
                releaser.accept(held);
            }
        }
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
