package io.distlock.redis;

import io.distlock.LockKind;
import io.distlock.redis.testing.RedisClusterExtension;
import io.distlock.redis.testing.RedisSentinelExtension;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.ToIntFunction;

/**
 * The contract's hooks for Redis, on one deployment: every kind and the inspector, the raw state read from the master
 * that holds the name's keys.
 */
final class RedisHooks extends BackendHooks {
    private final TestDeployment deployment;
    private final Class<? extends LockClientFactory> factory;
    private final ToIntFunction<String> masterOf;
    private final boolean countsCalls;
    private final Supplier<String> registryTarget;

    private RedisHooks(TestDeployment deployment, Class<? extends LockClientFactory> factory, ToIntFunction<String> masterOf,
            boolean countsCalls, Supplier<String> registryTarget) {
        this.deployment = deployment;
        this.factory = factory;
        this.masterOf = masterOf;
        this.countsCalls = countsCalls;
        this.registryTarget = registryTarget;
    }

    /** One redis-server; its command counter shows a waiter's calls. */
    static RedisHooks standalone(RedisServerExtension redis) {
        return new RedisHooks(redis, RedisClientFactory.class, name -> redis.server().port(), true, redis::target);
    }

    /** A master and its replica behind Sentinels; the contract's outages are not failovers, so the master stays the first server. */
    static RedisHooks sentinel(RedisSentinelExtension sentinel) {
        return new RedisHooks(sentinel, RedisClientFactory.class, name -> sentinel.group().servers().get(0).port(), false, sentinel::target);
    }

    /** A Cluster: each name's keys on the master of its slot. */
    static RedisHooks cluster(RedisClusterExtension cluster) {
        return new RedisHooks(cluster, RedisClusterContractTest.Factory.class,
                name -> cluster.cluster().masterOf(RedisKeys.defaults().lockKey(name)).port(), false,
                () -> cluster.target().replaceFirst("^redis://", "redis-cluster://"));
    }

    @Override
    public Class<? extends LockClientFactory> factoryClass() {
        return factory;
    }

    @Override
    public TestDeployment deployment() {
        return deployment;
    }

    @Override
    public Set<LockKind> kinds() {
        return EnumSet.allOf(LockKind.class);
    }

    @Override
    public boolean heldInBackend(LockKind kind, String name) {
        int port = masterOf.applyAsInt(name);
        return kind == LockKind.LOCK ? RawLockState.held(port, name) : RawLockState.queueHeld(port, name, stateOf(kind));
    }

    @Override
    public boolean writeHeldInBackend(String name) {
        return RawLockState.writerHeld(masterOf.applyAsInt(name), name);
    }

    @Override
    public OptionalLong lastTokenInBackend(LockKind kind, String name) {
        int port = masterOf.applyAsInt(name);
        return kind == LockKind.LOCK ? RawLockState.lastToken(port, name) : RawLockState.queueLastToken(port, name, stateOf(kind));
    }

    @Override
    public List<String> leftoversInBackend(String name) {
        return RawLockState.leftovers(masterOf.applyAsInt(name), name);
    }

    @Override
    public OptionalLong serverCalls() {
        return countsCalls ? OptionalLong.of(RawLockState.commandsProcessed(masterOf.applyAsInt(""))) : OptionalLong.empty();
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public String providerId() {
        return "redis";
    }

    @Override
    public Optional<String> registryTarget() {
        return Optional.of(registryTarget.get());
    }

    private static String stateOf(LockKind kind) {
        return switch (kind) {
            case FAIR_LOCK -> "fair";
            case READ_WRITE_LOCK -> "rw";
            case SEMAPHORE -> "sem";
            case LOCK -> throw new IllegalArgumentException("the plain lock has no queue state");
        };
    }

    @Override
    public boolean keepsLocksWithoutRenewals() {
        return true;
    }
}
