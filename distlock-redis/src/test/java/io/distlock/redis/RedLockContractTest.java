package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.redis.testing.RedLockExtension;
import io.distlock.redis.testing.RedisServer;
import io.distlock.testkit.BackendContract;
import io.distlock.testkit.BackendHooks;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The contract on RedLock over three independent masters (the plain lock; outages hit all of them). A lock is held
 * when one owner holds it on a majority of the nodes, and free only when no node holds it.
 */
class RedLockContractTest extends BackendContract {
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
    protected BackendHooks hooks() {
        return new BackendHooks() {
            @Override
            public Class<? extends LockClientFactory> factoryClass() {
                return Factory.class;
            }

            @Override
            public TestDeployment deployment() {
                return redLock;
            }

            @Override
            public Set<LockKind> kinds() {
                return Set.of(LockKind.LOCK);
            }

            @Override
            public boolean heldInBackend(LockKind kind, String name) {
                Map<String, Long> nodesByOwner = redLock.nodes().stream().map(node -> RawLockState.value(node.port(), name))
                        .filter(RedisKeys::isHeldValue)
                        .collect(Collectors.groupingBy(value -> value.substring(value.indexOf(':') + 1), Collectors.counting()));
                return nodesByOwner.values().stream().anyMatch(nodes -> nodes > redLock.nodes().size() / 2);
            }

            @Override
            public boolean freeInBackend(LockKind kind, String name) {
                return redLock.nodes().stream().noneMatch(node -> RawLockState.held(node.port(), name));
            }

            @Override
            public OptionalLong lastTokenInBackend(LockKind kind, String name) {
                return redLock.nodes().stream().map(RedisServer::port).map(port -> RawLockState.lastToken(port, name))
                        .filter(OptionalLong::isPresent).mapToLong(OptionalLong::getAsLong).max();
            }

            @Override
            public List<String> leftoversInBackend(String name) {
                List<String> left = new ArrayList<>();
                redLock.nodes().forEach(node -> RawLockState.leftovers(node.port(), name).forEach(key -> left.add(key + " on " + node.port())));
                return left;
            }

            @Override
            public Duration shortLease() {
                return NODE_TIMEOUT.multipliedBy(10);
            }

            @Override
            public String providerId() {
                return "redlock";
            }

            @Override
            public Optional<String> registryTarget() {
                return Optional.of("redlock://" + redLock.target().replace("redis://", ""));
            }
        };
    }
}
