package io.distlock.spring;

import org.springframework.util.ClassUtils;

/**
 * Reactor return types, recognised by name so that Reactor stays optional: this class names no Reactor
 * type, so it links without Reactor. What uses Reactor lives in {@link ReactorLocking}, loaded only for
 * methods that return a Mono or Flux.
 */
final class ReactorSupport {
    private static final boolean PRESENT = ClassUtils.isPresent("reactor.core.publisher.Mono", ReactorSupport.class.getClassLoader());

    private ReactorSupport() {}

    static boolean isMono(Class<?> type) {
        return PRESENT && type.getName().equals("reactor.core.publisher.Mono");
    }

    static boolean isFlux(Class<?> type) {
        return PRESENT && type.getName().equals("reactor.core.publisher.Flux");
    }
}
