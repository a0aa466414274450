package io.distlock.redis;

import io.distlock.LockClient;
import io.distlock.servers.Resp;
import io.distlock.testkit.ClientSettings;
import io.distlock.testkit.LockClientFactory;
import io.distlock.testkit.LockContract;
import io.distlock.testkit.RedLockExtension;
import io.distlock.testkit.TestDeployment;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The base lock contract on RedLock over three independent masters; outages hit all of them. */
class RedLockContractTest extends LockContract {
    @RegisterExtension
    static final RedLockExtension redLock = new RedLockExtension(3);

    /** Clients for the contract: the target is the comma-separated node URIs. */
    public static final class Factory implements LockClientFactory {
        @Override
        public LockClient create(String target, ClientSettings settings) {
            return RedLockClient.builder().uris(List.of(target.split(","))).operationTimeout(settings.operationTimeout())
                    .fallbackPoll(settings.fallbackPoll()).connectTimeout(Duration.ofSeconds(1)).build();
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
    protected boolean lockedInBackend(String name) {
        long holding = redLock.nodes().stream().filter(node -> RedisLockBackend.isHeldValue(
                (String) Resp.call(node.port(), "GET", RedisLockClient.DEFAULT_KEY_PREFIX + "{" + name + "}"))).count();
        return holding >= 2;
    }
}
