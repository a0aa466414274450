package io.distlock.spring;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ExpressionException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * Evaluates the SpEL {@link WithLock#key()} of a call: arguments by name ({@code #order}, needs
 * {@code -parameters}) or position ({@code #p0}, {@code #a0}), {@code #root.method}, {@code #root.target}
 * and beans ({@code @ids}). Parsed expressions are cached.
 */
final class LockNameExpressions {
    /** What {@code #root} is in a key expression. */
    public record Root(Method method, Object[] args, @Nullable Object target, Class<?> targetClass) {}

    private final SpelExpressionParser parser = new SpelExpressionParser();
    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final Map<String, Expression> parsed = new ConcurrentHashMap<>();
    private final @Nullable BeanFactory beanFactory;

    LockNameExpressions(@Nullable BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    /** Parses the expression now, so that a broken key fails when the bean is first called, naming the method. */
    void check(String expression, String where) {
        parse(expression, where);
    }

    /**
     * Returns the key for this call.
     *
     * @throws IllegalArgumentException if the expression fails or gives null, naming the method and the expression
     */
    String key(String expression, String where, Root root) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(root, root.method(), root.args(), parameterNames);
        if (beanFactory != null) {
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        }
        Object value;
        try {
            value = parse(expression, where).getValue(context);
        } catch (ExpressionException e) {
            throw new IllegalArgumentException("@WithLock key \"" + expression + "\" on " + where + " failed: " + e.getMessage(), e);
        }
        if (value == null) {
            throw new IllegalArgumentException("@WithLock key \"" + expression + "\" on " + where + " evaluated to null");
        }
        return value.toString();
    }

    private Expression parse(String expression, String where) {
        return parsed.computeIfAbsent(expression, text -> {
            try {
                return parser.parseExpression(text);
            } catch (ExpressionException e) {
                throw new IllegalArgumentException("@WithLock key \"" + text + "\" on " + where + " is not valid SpEL: " + e.getMessage(), e);
            }
        });
    }
}
