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
        Mono<R> acquired = Mono.fromCallable(acquire).subscribeOn(Schedulers.boundedElastic())
                .switchIfEmpty(Mono.defer(() -> notAcquired == null ? Mono.empty() : Mono.error(notAcquired.get())));
        Function<R, Mono<?>> cleanup = held -> Mono.fromRunnable(() -> release.accept(held));
        if (ReactorSupport.isMono(returnType)) {
            return Mono.usingWhen(acquired, held -> Mono.from(publisher(invoke.apply(held))), cleanup);
        }
        return Flux.usingWhen(acquired, held -> publisher(invoke.apply(held)), cleanup);
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
