package io.distlock.testkit.memory;

import io.distlock.LockKind;
import io.distlock.internal.MemoryStore;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The in-memory store's hooks: the plain lock only, read from the store itself; in the registry as {@link MemoryBackendProvider}. */
final class MemoryHooks extends BackendHooks {
    private final MemoryDeployment deployment;
    private final Class<? extends LockClientFactory> factory;
    private final boolean tellsForceUnlocks;

    MemoryHooks(MemoryDeployment deployment, Class<? extends LockClientFactory> factory, boolean tellsForceUnlocks) {
        this.deployment = deployment;
        this.factory = factory;
        this.tellsForceUnlocks = tellsForceUnlocks;
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
        return Set.of(LockKind.LOCK);
    }

    @Override
    public boolean heldInBackend(LockKind kind, String name) {
        return MemoryStore.named(deployment.target()).isHeld(name);
    }

    @Override
    public List<String> leftoversInBackend(String name) {
        return MemoryStore.named(deployment.target()).leftovers(name);
    }

    @Override
    public boolean tellsForceUnlocks() {
        return tellsForceUnlocks;
    }

    @Override
    public String providerId() {
        return "memory";
    }

    /** The same store through the registry ({@link MemoryBackendProvider}): {@code memory://} asks, {@code memory-queue://} queues. */
    @Override
    public Optional<String> registryTarget() {
        return Optional.of((factory == MemoryDeployment.QueueingClients.class ? "memory-queue://" : "memory://") + deployment.target());
    }
}
