package io.distlock.testkit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A JUnit 5 extension that starts one deployment of real servers before the first test of a class and
 * stops it after the last, also when tests fail. Register a subclass on a static field:
 * {@code @RegisterExtension static final RedisServerExtension redis = new RedisServerExtension();}
 *
 * @param <S> what the deployment is made of (a server, a group, a list of nodes)
 */
public abstract class DeploymentExtension<S> implements BeforeAllCallback, AfterAllCallback, TestDeployment {
    private @Nullable S servers;

    /** Starts the servers; called once per test class. */
    protected abstract S launch();

    /** Stops the servers and removes what they left behind. */
    protected abstract void shutDown(S running);

    @Override
    public final void beforeAll(ExtensionContext context) {
        servers = launch();
    }

    @Override
    public final void afterAll(ExtensionContext context) {
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
