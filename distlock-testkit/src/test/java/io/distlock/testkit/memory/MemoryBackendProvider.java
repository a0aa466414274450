package io.distlock.testkit.memory;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.internal.MemoryStore;
import io.distlock.spi.ClientBuilder;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.LockEngine;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * The in-memory store in the registry, registered exactly as a backend module registers its provider (a line in
 * {@code META-INF/services/io.distlock.spi.LockBackendProvider}): {@code memory://NAME} asks the store like Redis,
 * {@code memory-queue://NAME} queues like ZooKeeper. The namespace names a store of its own. The example of
 * docs/adding-a-backend.md; tests only (the store lives in this JVM).
 */
public final class MemoryBackendProvider implements LockBackendProvider {
    private static final String QUEUE = "memory-queue://";
    private static final String FORM = "memory://NAME or memory-queue://NAME";

    /** For {@link java.util.ServiceLoader}. */
    public MemoryBackendProvider() {}

    @Override
    public String id() {
        return "memory";
    }

    @Override
    public String description() {
        return "an in-memory store in this JVM, for tests: the engine alone, no server";
    }

    @Override
    public List<String> schemes() {
        return List.of("memory", "memory-queue");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("memory://orders", "memory-queue://orders");
    }

    @Override
    public LockClient open(String target, OpenOptions options) {
        boolean queue = target.toLowerCase(Locale.ROOT).startsWith(QUEUE);
        String name = target.substring(target.indexOf("://") + 3);
        if (name.isBlank() || name.contains("/")) {
            throw new IllegalArgumentException("target '" + target + "' must look like " + FORM);
        }
        MemoryStore store = MemoryStore.named(name + options.namespace().map(namespace -> "#" + namespace).orElse(""));
        if (store.isStopped()) {
            throw new BackendUnavailableException("cannot connect to the memory store '" + name + "': it is stopped", null);
        }
        return new Builder().apply(options).build(store, queue);
    }

    /** The settings every backend's builder has, applied from the options as any backend applies them. */
    private static final class Builder extends ClientBuilder<Builder> {
        Builder() {
            super(LockOptions.defaults(), Duration.ofSeconds(1));
        }

        @Override
        protected Builder self() {
            return this;
        }

        LockClient build(MemoryStore store, boolean queue) {
            return LockEngine.newClient(queue ? store.queueBackend(operationTimeout()) : store.pollingBackend(operationTimeout()),
                    engineSettings("distlock-memory"));
        }
    }
}
