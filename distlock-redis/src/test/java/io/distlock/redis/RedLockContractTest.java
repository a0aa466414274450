package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.testkit.BackendControl;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockContract;
import io.distlock.testkit.RedisServer;
import io.distlock.testkit.Resp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The base lock contract on RedLock over three independent masters; outages hit all of them. */
class RedLockContractTest extends LockContract {
    private static final List<RedisServer> nodes = new ArrayList<>();

    /** Clients for the contract: the target is the comma-separated node URIs. */
    public static final class Factory implements LockClientFactory {
        @Override
        public LockClient create(String target) {
            return RedLockClient.builder().uris(List.of(target.split(","))).operationTimeout(Duration.ofSeconds(1))
                    .connectTimeout(Duration.ofSeconds(1)).build();
        }
    }

    @BeforeAll
    static void startNodes() {
        for (int i = 0; i < 3; i++) {
            nodes.add(RedisServer.launch());
        }
    }

    @AfterAll
    static void stopNodes() {
        nodes.forEach(RedisServer::close);
        nodes.clear();
    }

    @Override
    protected Class<? extends LockClientFactory> factoryClass() {
        return Factory.class;
    }

    @Override
    protected String target() {
        return nodes.stream().map(RedisServer::uri).collect(Collectors.joining(","));
    }

    @Override
    protected BackendControl backend() {
        return BackendControl.allOf(nodes, () -> { });
    }

    @Override
    protected boolean lockedInBackend(String name) {
        long holding = nodes.stream().filter(node -> RedisKeys.isHeldValue(
                (String) Resp.call(node.port(), "GET", RedisKeys.defaults().lockKey(name)))).count();
        return holding >= 2;
    }
}
