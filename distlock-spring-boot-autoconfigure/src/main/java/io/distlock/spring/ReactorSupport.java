package io.distlock.spring;

import org.springframework.util.ClassUtils;

/** Reactor types, recognised by name so that Reactor stays optional. */
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
        return reactor.core.publisher.Mono.empty();
    }
}
