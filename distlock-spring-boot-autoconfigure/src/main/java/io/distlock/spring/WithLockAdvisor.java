package io.distlock.spring;

import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.core.Ordered;

/**
 * Applies {@link WithLockInterceptor} to methods annotated {@link WithLock}. Ordered outside
 * {@code @Transactional} and {@code @Cacheable} (whose advisors default to the lowest precedence), so a
 * transaction commits before the lock is released.
 */
public final class WithLockAdvisor extends AbstractPointcutAdvisor {
    /** The default order: before (outside) advisors of the lowest precedence, such as transactions and caching. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    private static final long serialVersionUID = 1L;

    private final transient WithLockInterceptor interceptor;
    private final transient Pointcut pointcut = new AnnotationMatchingPointcut(null, WithLock.class, true);

    public WithLockAdvisor(WithLockInterceptor interceptor, int order) {
        this.interceptor = interceptor;
        setOrder(order);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }
}
