package io.distlock.test;

import io.distlock.LockClient;
import io.distlock.LockOptions;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.jspecify.annotations.Nullable;

/**
 * A JUnit 5 extension that gives each test a fresh {@link InMemoryLockServer} and closes it (and its clients) after the
 * test. Test methods may take an {@link InMemoryLockServer} or a {@link LockClient} parameter (a new client of the
 * test's server per parameter).
 *
 * <pre>{@code
 * @ExtendWith(InMemoryLocks.class)
 * class StockTest {
 *     @Test
 *     void twoInstancesNeverSellTheLastItemTwice(LockClient first, LockClient second, InMemoryLockServer server) { ... }
 * }
 *
 * // or, to choose the clients' options and use them in fields:
 * @RegisterExtension
 * static final InMemoryLocks locks = InMemoryLocks.withDefaults(LockOptions.builder().leaseTime(Duration.ofSeconds(1)).build());
 * ... locks.server().newClient() ...
 * }</pre>
 */
public final class InMemoryLocks implements BeforeEachCallback, AfterEachCallback, ParameterResolver {
    private final LockOptions defaults;
    private @Nullable InMemoryLockServer server;

    /** Clients with {@link InMemoryLockServer#TEST_DEFAULTS}. */
    public InMemoryLocks() {
        this(InMemoryLockServer.TEST_DEFAULTS);
    }

    private InMemoryLocks(LockOptions defaults) {
        this.defaults = defaults;
    }

    /** An extension whose parameter-injected clients have {@code defaults}. */
    public static InMemoryLocks withDefaults(LockOptions defaults) {
        if (defaults == null) {
            throw new IllegalArgumentException("defaults must not be null");
        }
        return new InMemoryLocks(defaults);
    }

    /**
     * Returns the running test's server.
     *
     * @throws IllegalStateException outside a test (before {@code @BeforeEach} of this extension, or after the test)
     */
    public InMemoryLockServer server() {
        InMemoryLockServer current = server;
        if (current == null) {
            throw new IllegalStateException("no test is running: the in-memory lock server exists from before each test to after it");
        }
        return current;
    }

    /** Returns a new client of the running test's server, with this extension's defaults. */
    public LockClient newClient() {
        return server().newClient(defaults);
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        server = new InMemoryLockServer();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        InMemoryLockServer current = server;
        server = null;
        if (current != null) {
            current.close();
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return type == InMemoryLockServer.class || type == LockClient.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == InMemoryLockServer.class ? server() : newClient();
    }
}
