package io.distlock.spring;

import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.springframework.util.ClassUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** Reactor return types, recognised by name so that Reactor stays optional; the methods that use Reactor run only when it is there. */
final class ReactorSupport {
    private static final boolean PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono", ReactorSupport.class.getClassLoader());

    private ReactorSupport() {}

    static boolean isMono(Class<?> type) {
        return PRESENT && type.getName().equals("reactor.core.publisher.Mono");
    }

    static boolean isFlux(Class<?> type) {
        return PRESENT && type.getName().equals("reactor.core.publisher.Flux");
    }

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
     * @param invoke calls the method under the lock; its publisher sees the lock in its context
     * @param release releases the lock
     * @param <R> what {@code acquire} returns
     */
    static <R> Object hold(Class<?> returnType, Callable<@Nullable R> acquire, @Nullable Supplier<Throwable> notAcquired,
            Function<R, @Nullable Object> invoke, Consumer<R> release) {
        Mono<R> acquired = Mono.fromCallable(acquire).subscribeOn(Schedulers.boundedElastic())
                .switchIfEmpty(Mono.defer(() -> notAcquired == null ? Mono.empty() : Mono.error(notAcquired.get())));
        Function<R, Mono<?>> cleanup = held -> Mono.fromRunnable(() -> release.accept(held));
        if (isMono(returnType)) {
            return Mono.usingWhen(acquired, held -> Mono.from(publisher(invoke.apply(held))), cleanup);
        }
        return Flux.usingWhen(acquired, held -> publisher(invoke.apply(held)), cleanup);
    }

    private static Publisher<?> publisher(@Nullable Object result) {
        return result == null ? Mono.empty() : (Publisher<?>) result;
    }
}
