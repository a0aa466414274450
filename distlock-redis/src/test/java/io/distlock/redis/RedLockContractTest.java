package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.LockClient;
import io.distlock.servers.RedisServer;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LeaseLockContract;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.RedLockExtension;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The whole lease-lock contract on RedLock over three independent masters; outages hit all of them. A
 * lock is held when a majority of nodes holds it, and free only when no node does.
 */
class RedLockContractTest extends LeaseLockContract {
    /** Each node's answer must come within this; RedLock asks for leases of at least ten of it. */
    static final Duration NODE_TIMEOUT = Duration.ofMillis(250);

    @RegisterExtension
    static final RedLockExtension redLock = new RedLockExtension(3);

    /** Clients for the contract: the target is the comma-separated node URIs. */
    public static final class Factory implements LockClientFactory {
        @Override
        public LockClient create(String target, ClientSettings settings) {
            return RedLockClient.builder().uris(List.of(target.split(","))).nodeTimeout(NODE_TIMEOUT)
                    .operationTimeout(settings.operationTimeout()).fallbackPoll(settings.fallbackPoll())
                    .connectTimeout(Duration.ofSeconds(1)).build();
        }
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return Factory.class;
    }

    @Override
    protected TestDeployment deployment() {
        return redLock;
    }

    @Override
    protected Duration shortLease() {
        return NODE_TIMEOUT.multipliedBy(10);
    }

    private long nodesHolding(String name) {
        return redLock.nodes().stream().filter(node -> RawLockState.held(node.port(), name)).count();
    }

    /** Locked: one owner holds the lock on a majority of the nodes (two nodes held by two owners lock nothing). */
    @Override
    protected boolean lockedInBackend(String name) {
        java.util.Map<String, Long> nodesByOwner = redLock.nodes().stream().map(node -> RawLockState.value(node.port(), name))
                .filter(RedisKeys::isHeldValue).collect(java.util.stream.Collectors.groupingBy(value -> value.substring(value.indexOf(':') + 1),
                        java.util.stream.Collectors.counting()));
        return nodesByOwner.values().stream().anyMatch(nodes -> nodes > redLock.nodes().size() / 2);
    }

    @Override
    protected void assertUnlocked(String name) {
        assertThat(nodesHolding(name)).as("RedLock nodes still holding lock '%s'", name).isZero();
    }

    @Override
    protected OptionalLong lastTokenInBackend(String name) {
        return redLock.nodes().stream().map(RedisServer::port).map(port -> RawLockState.lastToken(port, name))
                .filter(OptionalLong::isPresent).mapToLong(OptionalLong::getAsLong).max();
    }
}
