package io.distlock.spring;

import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * Runs {@link WithLock} methods under their lock. Synchronous methods hold a thread-bound (reentrant)
 * lease for the duration of the call; methods returning a {@code CompletionStage} hold a detached lease
 * ({@link DistributedLock#tryAcquireDetached}) until the returned stage completes; a {@code Mono} or
 * {@code Flux} takes a detached lease per subscription and holds it until the publisher terminates.
 */
public final class WithLockInterceptor implements MethodInterceptor, DisposableBean {
    private static final Logger log = LoggerFactory.getLogger(WithLockInterceptor.class);

    private final Supplier<LockClient> client;
    private final Supplier<String> backend;
    private final Supplier<AcquireObservation> observation;
    private final Duration defaultWait;
    private final LockNameExpressions expressions;
    private final @Nullable BeanFactory beanFactory;
    private final Map<PlanKey, Plan> plans = new ConcurrentHashMap<>();
    private final MinHoldReleases releases;

    /**
     * @param client the lock client, looked up on first use
     * @param backend the client's backend, for observations, e.g. {@code redis}; looked up on first use
     * @param observation observes each acquisition ({@link AcquireObservation#NONE} for none); looked up on first use, so that
     *     an advisor created early (auto-proxy creators fetch advisors first) does not create the observation registry early
     * @param defaultWait the wait of annotations that name none
     * @param beanFactory resolves {@code @bean} references in keys and {@code ${...}} in durations; may be null
     */
    public WithLockInterceptor(Supplier<LockClient> client, Supplier<String> backend, Supplier<AcquireObservation> observation,
            Duration defaultWait, @Nullable BeanFactory beanFactory) {
        this.client = SingletonSupplier.of(client);
        this.backend = SingletonSupplier.of(backend);
        this.observation = SingletonSupplier.of(observation);
        this.defaultWait = defaultWait;
        this.beanFactory = beanFactory;
        this.expressions = new LockNameExpressions(beanFactory);
        this.releases = new MinHoldReleases(this.backend);
    }

    /** How a method's result relates to the time the lock is held. */
    private enum Kind {
        /** Held while the method runs, by the calling thread. */
        SYNC,
        /** Held, by no thread, until the returned CompletionStage completes. */
        STAGE,
        /** Taken per subscription to the returned Mono or Flux, held until it terminates. */
        REACTIVE
    }

    /** What the annotation on one method says, parsed once. */
    private record Plan(String where, String name, String key, Duration waitTime, @Nullable Duration leaseTime, WithLock.OnFailure onFailure,
            Duration minHold, WithLock.OnLost onLost, Kind kind) {}

    /** A method as called on one bean class: the default name and the annotation found depend on both. */
    private record PlanKey(Method method, Class<?> targetClass) {}

    /** A lease and when it was taken (minHold counts from there). */
    private record Held(Lease lease, long startedNanos, AtomicBoolean ended) {}

    @Override
    public @Nullable Object invoke(MethodInvocation invocation) throws Throwable {
        Object target = invocation.getThis();
        Class<?> targetClass = target == null ? invocation.getMethod().getDeclaringClass() : AopUtils.getTargetClass(target);
        Plan plan = plans.computeIfAbsent(new PlanKey(invocation.getMethod(), targetClass), key -> plan(key.method(), key.targetClass()));
        String lockName = plan.key().isEmpty() ? plan.name() : plan.name() + ":" + expressions.key(plan.key(), plan.where(),
                new LockNameExpressions.Root(invocation.getMethod(), invocation.getArguments(), target, targetClass));
        DistributedLock lock = LeaseOverride.lock(client.get(), lockName, plan.leaseTime());
        return switch (plan.kind()) {
            case SYNC -> invokeHolding(invocation, plan, lock);
            case STAGE -> invokeHoldingUntilComplete(invocation, plan, lock);
            case REACTIVE -> invokeReactive(invocation, plan, lock);
        };
    }

    private @Nullable Object invokeHolding(MethodInvocation invocation, Plan plan, DistributedLock lock) throws Throwable {
        Optional<Lease> acquired = observed(plan, () -> lock.tryAcquire(plan.waitTime()));
        if (acquired.isEmpty()) {
            return notAcquired(plan, lock, invocation.getMethod().getReturnType());
        }
        Lease lease = acquired.get();
        long started = System.nanoTime();
        RunningCall call = new RunningCall(Thread.currentThread());
        lease.onLost(lost -> {
            if (!call.interruptIfRunning(plan.onLost() == WithLock.OnLost.INTERRUPT)) {
                log.debug("@WithLock {}: the lease on '{}' was lost after the method returned, while minHold kept it ({}): {}", plan.where(),
                        lock.name(), lost.reason(), lost.getMessage());
                return;
            }
            log.warn("@WithLock {}: the lease on '{}' was lost while the method ran ({}): {}", plan.where(), lock.name(), lost.reason(),
                    lost.getMessage());
        });
        try (LockContext.Scope scope = LockContext.enter(lease)) {
            return invocation.proceed();
        } finally {
            call.finished();
            release(lease, plan, started);
        }
    }

    private @Nullable Object invokeHoldingUntilComplete(MethodInvocation invocation, Plan plan, DistributedLock lock) throws Throwable {
        Class<?> returnType = invocation.getMethod().getReturnType();
        Optional<Lease> acquired = observed(plan, () -> lock.tryAcquireDetached(plan.waitTime()));
        if (acquired.isEmpty()) {
            return notAcquired(plan, lock, returnType);
        }
        Lease lease = acquired.get();
        long started = System.nanoTime();
        AtomicBoolean ended = new AtomicBoolean();
        lease.onLost(lost -> lostUnlessEnded(ended, plan, lock, lost, "before the returned stage completed"));
        Object result;
        try (LockContext.Scope scope = LockContext.enter(lease)) {
            result = invocation.proceed();
        } catch (Throwable t) {
            ended.set(true);
            release(lease, plan, started);
            throw t;
        }
        if (!(result instanceof CompletionStage<?> stage)) {
            ended.set(true);
            release(lease, plan, started);
            return result;
        }
        if (!returnType.isAssignableFrom(CompletableFuture.class)) {
            // a CompletionStage type of its own: we cannot hand back another object, so release alongside its other dependents
            stage.whenComplete((value, error) -> {
                ended.set(true);
                release(lease, plan, started);
            });
            return result;
        }
        // released before the caller's continuations run, so that they may take the same lock again
        CompletableFuture<Object> afterRelease = new CompletableFuture<>();
        stage.whenComplete((value, error) -> {
            try {
                ended.set(true);
                release(lease, plan, started);
            } finally {
                if (error != null) {
                    afterRelease.completeExceptionally(error);
                } else {
                    afterRelease.complete(value);
                }
            }
        });
        return afterRelease;
    }

    private Optional<Lease> observed(Plan plan, ObservedAcquire.Acquiring acquiring) throws InterruptedException {
        return ObservedAcquire.run(observation.get(), plan.name(), backend.get(), plan.onFailure() == WithLock.OnFailure.SKIP, acquiring);
    }

    private Object invokeReactive(MethodInvocation invocation, Plan plan, DistributedLock lock) {
        return ReactorLocking.hold(invocation.getMethod().getReturnType(),
                () -> observed(plan, () -> lock.tryAcquireDetached(plan.waitTime())).map(lease -> {
                    Held held = new Held(lease, System.nanoTime(), new AtomicBoolean());
                    lease.onLost(lost -> lostUnlessEnded(held.ended(), plan, lock, lost, "before the returned publisher terminated"));
                    return held;
                }).orElse(null),
                plan.onFailure() == WithLock.OnFailure.THROW ? () -> new LockAcquireTimeoutException(lock.name(), plan.waitTime()) : null,
                held -> {
                    // a fresh invocation per subscription: a publisher may be subscribed more than once
                    MethodInvocation call = invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
                    try (LockContext.Scope scope = LockContext.enter(held.lease())) {
                        Object publisher = call.proceed();
                        return publisher == null ? null : ReactorLocking.withLease(publisher, held.lease());
                    } catch (Throwable t) {
                        return ReactorLocking.error(t);
                    }
                },
                held -> {
                    held.ended().set(true);
                    release(held.lease(), plan, held.startedNanos());
                });
    }

    private @Nullable Object notAcquired(Plan plan, DistributedLock lock, Class<?> returnType) {
        if (plan.onFailure() == WithLock.OnFailure.THROW) {
            throw new LockAcquireTimeoutException(lock.name(), plan.waitTime());
        }
        log.debug("@WithLock {}: '{}' is held elsewhere; skipped", plan.where(), lock.name());
        return skippedValue(returnType);
    }

    /** Warns of a lost lease while the work it guards runs; once that has ended (minHold keeps the lease), only at debug level. */
    private static void lostUnlessEnded(AtomicBoolean ended, Plan plan, DistributedLock lock, LeaseLostException lost, String when) {
        if (ended.get()) {
            log.debug("@WithLock {}: the lease on '{}' was lost after the work ended, while minHold kept it ({}): {}", plan.where(),
                    lock.name(), lost.reason(), lost.getMessage());
        } else {
            log.warn("@WithLock {}: the lease on '{}' was lost {} ({}): {}", plan.where(), lock.name(), when, lost.reason(), lost.getMessage());
        }
    }

    /** Closes the lease now, or keeps the lock until minHold has passed since the method started ({@link MinHoldReleases}). */
    private void release(Lease lease, Plan plan, long startedNanos) {
        releases.release(lease, plan.minHold(), startedNanos);
    }

    /** The context is closing: see {@link MinHoldReleases#closeAll()}. */
    @Override
    public void destroy() {
        releases.closeAll();
    }

    static @Nullable Object skippedValue(Class<?> type) {
        if (type == Optional.class) {
            return Optional.empty();
        }
        if (type.isAssignableFrom(CompletableFuture.class)) {
            return type == Object.class ? null : CompletableFuture.completedFuture(null);
        }
        if (ReactorSupport.isMono(type)) {
            return ReactorLocking.emptyMono();
        }
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type.isPrimitive() && type != void.class) {
            return switch (type.getName()) {
                case "byte" -> (byte) 0;
                case "short" -> (short) 0;
                case "int" -> 0;
                case "long" -> 0L;
                case "float" -> 0f;
                default -> 0d;
            };
        }
        return null;
    }

    /**
     * Reads the annotation of {@code method} now (its key parsed, its durations read) and keeps the plan for its calls.
     *
     * @throws IllegalArgumentException naming the method, if the key is not SpEL or a duration cannot be read
     */
    void check(Method method, Class<?> targetClass) {
        plans.computeIfAbsent(new PlanKey(method, targetClass), key -> plan(key.method(), key.targetClass()));
    }

    private Plan plan(Method method, Class<?> targetClass) {
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        WithLock annotation = AnnotatedElementUtils.findMergedAnnotation(specific, WithLock.class);
        if (annotation == null) {
            annotation = AnnotatedElementUtils.findMergedAnnotation(method, WithLock.class);
        }
        if (annotation == null) {
            throw new IllegalStateException("no @WithLock on " + method);
        }
        String where = ClassUtils.getUserClass(targetClass).getSimpleName() + "." + method.getName();
        String name = resolve(annotation.name()).isBlank() ? where : resolve(annotation.name());
        String key = annotation.key().trim();
        if (!key.isEmpty()) {
            expressions.check(key, where);
        }
        Duration wait = annotation.waitTime().isBlank() ? defaultWait : Durations.parse(resolve(annotation.waitTime()), "waitTime", where);
        Duration leaseTime = annotation.leaseTime().isBlank() ? null : Durations.parse(resolve(annotation.leaseTime()), "leaseTime", where);
        if (leaseTime != null) {
            try {
                LockOptions.builder().leaseTime(leaseTime); // checked here, where the method can be named
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("@WithLock leaseTime = \"" + annotation.leaseTime() + "\" on " + where + ": " + e.getMessage(), e);
            }
        }
        Duration minHold = Durations.parse(resolve(annotation.minHold()), "minHold", where);
        Class<?> returnType = method.getReturnType();
        Kind kind = CompletionStage.class.isAssignableFrom(returnType) ? Kind.STAGE
                : ReactorSupport.isMono(returnType) || ReactorSupport.isFlux(returnType) ? Kind.REACTIVE : Kind.SYNC;
        return new Plan(where, name, key, wait, leaseTime, annotation.onFailure(), minHold, annotation.onLost(), kind);
    }

    private String resolve(String text) {
        if (beanFactory instanceof ConfigurableBeanFactory configurable && text.contains("${")) {
            String resolved = configurable.resolveEmbeddedValue(text);
            return resolved == null ? text : resolved;
        }
        return text;
    }
}
