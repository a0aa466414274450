package io.distlock.testkit;

import io.distlock.servers.RedisServer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that starts one {@link RedisServer} for a test class and kills it afterwards,
 * also when tests fail. Use as {@code @RegisterExtension static final RedisServerExtension redis = ...}.
 */
public final class RedisServerExtension implements BeforeAllCallback, AfterAllCallback {
    private RedisServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = RedisServer.launch();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
        }
    }

    /** Returns the running server. */
    public RedisServer server() {
        if (server == null) {
            throw new IllegalStateException("the Redis server starts before the first test of the class");
        }
        return server;
    }
}
