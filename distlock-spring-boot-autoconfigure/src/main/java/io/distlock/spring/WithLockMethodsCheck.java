package io.distlock.spring;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.BeanInitializationException;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Checks every bean's {@link WithLock} methods when the bean is made, so that a method that would run unlocked, or a
 * key or duration that cannot work, stops the startup naming the method instead of showing up at a call.
 */
public final class WithLockMethodsCheck implements BeanPostProcessor, AopInfrastructureBean, BeanFactoryAware {
    /*
     * A proxy can advise only methods it can override or call through an interface: a final method of a class-based
     * (CGLIB) proxy, and every private or static method, runs without the advice, so without the lock. Those are errors:
     * the method looks locked and is not. The annotation's key is parsed and its durations read (the interceptor's
     * plan for the method, cached for its calls); what a key refers to (an argument, a bean) is known only at a call.
     *
     * It is AOP infrastructure: made while post-processors are, it must not make the auto-proxy creator fetch the
     * advisors (the @WithLock advisor needs the properties, which would then be made before their binding).
     */
    private static final Logger log = LoggerFactory.getLogger(WithLockMethodsCheck.class);

    private Supplier<WithLockInterceptor> interceptor;
    private final boolean fromBeanFactory;
    /** The classes whose calls on this were looked for, once each (a class may have several beans). */
    private final Set<Class<?>> selfCallsChecked = ConcurrentHashMap.newKeySet();

    /** @param interceptor the interceptor whose plans check the annotations; looked up when a bean has one */
    public WithLockMethodsCheck(Supplier<WithLockInterceptor> interceptor) {
        this.interceptor = interceptor;
        this.fromBeanFactory = false;
    }

    /**
     * For a bean definition of its own (the starter's: a plain class definition, so that it can be processed ahead of
     * time): the interceptor is the {@link WithLockInterceptor} bean of the factory it is made in.
     */
    public WithLockMethodsCheck() {
        this.interceptor = () -> {
            throw new IllegalStateException("WithLockMethodsCheck was made outside a bean factory: pass it the interceptor");
        };
        this.fromBeanFactory = true;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        if (fromBeanFactory) {
            this.interceptor = () -> beanFactory.getBean(WithLockInterceptor.class);
        }
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> targetClass = AopUtils.getTargetClass(bean);
        Class<?> userClass = ClassUtils.getUserClass(targetClass);
        // Spring's own pre-filter (as for @Transactional): skips java.* and Spring classes, and those that cannot carry it
        if (userClass.getName().startsWith("org.springframework.") || !AnnotationUtils.isCandidateClass(userClass, WithLock.class)) {
            return bean;
        }
        boolean throughInterfaces = AopUtils.isJdkDynamicProxy(bean);
        List<String> problems = new ArrayList<>();
        List<Method> annotated = new ArrayList<>();
        ReflectionUtils.doWithMethods(userClass, method -> {
            if (!method.isBridge() && AnnotatedElementUtils.hasAnnotation(method, WithLock.class)) {
                annotated.add(method);
            }
        });
        for (Method method : annotated) {
            String where = userClass.getSimpleName() + "." + method.getName() + "()";
            int modifiers = method.getModifiers();
            if (Modifier.isPrivate(modifiers)) {
                problems.add("@WithLock on " + where + " is never applied: the method is private, and a proxy cannot call it; make it "
                        + "public (or protected), or lock inside it with LockTemplate");
            } else if (Modifier.isStatic(modifiers)) {
                problems.add("@WithLock on " + where + " is never applied: the method is static; call it on the bean, or lock inside it "
                        + "with LockTemplate");
            } else if (Modifier.isFinal(modifiers) && !throughInterfaces) {
                problems.add("@WithLock on " + where + " is never applied: the method is final, and a class-based proxy cannot override "
                        + "it (Kotlin: open it, or use the kotlin-spring plugin)");
            } else {
                try {
                    interceptor.get().check(method, targetClass);
                } catch (IllegalArgumentException | IllegalStateException e) {
                    problems.add(e.getMessage());
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new BeanInitializationException("bean '" + beanName + "': " + String.join("; ", problems));
        }
        if (!annotated.isEmpty() && selfCallsChecked.add(userClass)) {
            for (SelfCalls.SelfCall call : SelfCalls.find(userClass, annotated)) {
                log.warn("@WithLock on {}() is bypassed where {}() calls it on this: a call inside the bean does not go through its "
                        + "proxy, so it runs without the lock; call it through the proxy (inject the bean into itself, @Lazy), or lock "
                        + "with LockTemplate there", call.callee(), call.caller());
            }
        }
        return bean;
    }
}
