package io.distlock.testkit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that starts one deployment of real servers before the first test of a class and
 * stops it after the last, also when tests fail; the class's {@code @Nested} classes run on the same servers. Register a subclass on a static field:
 * {@code @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();}
 *
 * @param <S> what the deployment is made of (a server, a group, a list of nodes)
 */
public abstract class DeploymentExtension<S> implements BeforeAllCallback, AfterAllCallback, TestDeployment {
    private volatile @Nullable S servers;
    private int classes;

    /** Starts the servers; called once per test class (its {@code @Nested} classes share them). */
    protected abstract S launch();

    /** Stops the servers and removes what they left behind. */
    protected abstract void shutDown(S running);

    @Override
    public final synchronized void beforeAll(ExtensionContext context) {
        // JUnit calls an outer class's extension again for each @Nested class: they share the outer class's servers.
        if (classes++ == 0) {
            servers = launch();
        }
    }

    @Override
    public final synchronized void afterAll(ExtensionContext context) {
        if (--classes > 0) {
            return;
        }
        S running = servers;
        servers = null;
        if (running != null) {
            shutDown(running);
        }
    }

    /**
     * Returns the running servers.
     *
     * @throws IllegalStateException outside the test class's lifetime
     */
    protected final S servers() {
        S running = servers;
        if (running == null) {
            throw new IllegalStateException("the servers start before the first test of the class");
        }
        return running;
    }
}
