package io.distlock.spring.autoconfigure;

import io.distlock.spring.WithLock;
import java.lang.reflect.Method;
import java.util.LinkedHashSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.beans.factory.aot.BeanRegistrationAotContribution;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.RegisteredBean;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Ahead of time: the interfaces and superclasses of a bean that declare {@code @WithLock} methods get reflection hints
 * for reading those methods at run time, where the advisor looks for the annotation and its key expression (Spring
 * registers the bean's own class, not the interfaces it implements). Registered in {@code META-INF/spring/aot.factories}.
 */
class WithLockBeansAotProcessor implements BeanRegistrationAotProcessor {
    @Override
    public @Nullable BeanRegistrationAotContribution processAheadOfTime(RegisteredBean bean) {
        Class<?> beanClass = ClassUtils.getUserClass(bean.getBeanClass());
        Set<Class<?>> declaring = new LinkedHashSet<>();
        for (Class<?> type : ClassUtils.getAllInterfacesForClassAsSet(beanClass)) {
            collect(type, declaring);
        }
        for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
            collect(type, declaring);
        }
        if (declaring.isEmpty()) {
            return null;
        }
        return (generation, code) -> {
            ReflectionHints reflection = generation.getRuntimeHints().reflection();
            for (Class<?> type : declaring) {
                reflection.registerType(type, MemberCategory.INTROSPECT_PUBLIC_METHODS, MemberCategory.INTROSPECT_DECLARED_METHODS);
            }
        };
    }

    /** Adds {@code type} to {@code declaring} if it declares a method annotated {@code @WithLock}. */
    private static void collect(Class<?> type, Set<Class<?>> declaring) {
        if (!AnnotationUtils.isCandidateClass(type, WithLock.class)) {
            return;
        }
        for (Method method : ReflectionUtils.getDeclaredMethods(type)) {
            if (AnnotatedElementUtils.hasAnnotation(method, WithLock.class)) {
                declaring.add(type);
                return;
            }
        }
    }
}
