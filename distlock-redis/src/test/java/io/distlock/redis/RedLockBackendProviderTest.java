package io.distlock.redis;

import io.distlock.testkit.BackendProviderContract;
import io.distlock.testkit.RedLockExtension;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The RedLock provider on three real, independent redis-servers. */
class RedLockBackendProviderTest extends BackendProviderContract {
    @RegisterExtension
    static final RedLockExtension redLock = new RedLockExtension(3);

    @Override
    protected String providerId() {
        return "redlock";
    }

    @Override
    protected String registryTarget() {
        return "redlock://" + redLock.target().replace("redis://", "");
    }
}
