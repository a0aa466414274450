package io.distlock.spring;

import io.distlock.Lease;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** Puts the lease into a returned publisher's Reactor context; loaded only when Reactor is there. */
final class ReactorContext {
    private ReactorContext() {}

    static Object withLease(Object publisher, Lease lease) {
        if (publisher instanceof Mono<?> mono) {
            return mono.contextWrite(context -> context.put(LockContext.REACTOR_CONTEXT_KEY, lease));
        }
        if (publisher instanceof Flux<?> flux) {
            return flux.contextWrite(context -> context.put(LockContext.REACTOR_CONTEXT_KEY, lease));
        }
        return publisher;
    }

    static Object error(Throwable error) {
        return Mono.error(error);
    }
}
