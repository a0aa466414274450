package io.distlock.testkit.memory;

import io.distlock.BackendUnavailableException;
import io.distlock.LockClient;
import io.distlock.internal.MemoryLockClients;
import io.distlock.internal.MemoryStore;
import io.distlock.servers.BackendControl;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;

/**
 * The engine's in-memory store as a contract deployment: the target names a store, and the faults act
 * on it (stop refuses, pause holds every request, restart forgets every lock). No server is involved,
 * so the tiers run in seconds and test the engine alone.
 */
final class MemoryDeployment implements TestDeployment {
    private final String name;

    MemoryDeployment(String name) {
        this.name = name;
    }

    @Override
    public String target() {
        return name;
    }

    @Override
    public BackendControl control() {
        MemoryStore store = MemoryStore.named(name);
        return new BackendControl() {
            @Override
            public void stop() {
                store.stop();
            }

            @Override
            public void kill() {
                store.stop();
            }

            @Override
            public void start() {
                store.start();
            }

            @Override
            public void restart() {
                store.restart();
            }

            @Override
            public void pause() {
                store.pause();
            }

            @Override
            public void resume() {
                store.resume();
            }
        };
    }

    /** Clients that acquire by asking, like Redis's. */
    public static final class PollingClients implements LockClientFactory {
        @Override
        public LockClient create(String target, ClientSettings settings) {
            MemoryStore store = reachable(target);
            return MemoryLockClients.polling(store, settings.operationTimeout(), settings.fallbackPoll());
        }
    }

    /** Clients that acquire by queueing, like ZooKeeper's. */
    public static final class QueueingClients implements LockClientFactory {
        @Override
        public LockClient create(String target, ClientSettings settings) {
            MemoryStore store = reachable(target);
            return MemoryLockClients.queueing(store, settings.operationTimeout(), settings.fallbackPoll());
        }
    }

    private static MemoryStore reachable(String target) {
        MemoryStore store = MemoryStore.named(target);
        if (store.isStopped()) {
            throw new BackendUnavailableException("cannot connect to the memory store '" + target + "': it is stopped", null);
        }
        return store;
    }
}
