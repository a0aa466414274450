package io.distlock.testkit;

import io.distlock.LockKind;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Tag;

/**
 * Every tier of the contract, run from one backend's hooks. A backend's entry point is one small class per
 * deployment: it registers the deployment's extension and returns its {@link BackendHooks}; the tiers below run
 * from those, and a tier whose capability the hooks do not declare (a kind, sessions, an inspector, a registry
 * target) is skipped, saying why, so nothing is overridden empty:
 *
 * <pre>{@code
 * class RedisContractTest extends BackendContract {
 *     @RegisterExtension
 *     static final RedisServerExtension redis = new RedisServerExtension();
 *
 *     @Override
 *     protected BackendHooks hooks() {
 *         return new RedisHooks(redis);
 *     }
 * }
 * }</pre>
 *
 * The deployment starts once for the class and serves every tier (see {@link DeploymentExtension}); a backend adds
 * tiers of its own as further {@code @Nested} classes of its entry point.
 */
public abstract class BackendContract {
    /**
     * The system property that narrows the tiers run, as a comma-separated list of their names ({@code Lock},
     * {@code FairLock}, ...): the compatibility modules run a few tiers on each Boot line, not all. Unset: every tier.
     */
    public static final String TIERS_PROPERTY = "distlock.contract.tiers";

    /**
     * The tag of the tiers that run the whole lease-lock contract again for another kind ({@link FairLock},
     * {@link WriteLock}). On a deployment tagged {@link #ANOTHER_DEPLOYMENT} as well, {@code ./mvnw verify} leaves them
     * to the slow phase ({@code -Pslow}, which CI runs): the root pom excludes the two tags together.
     */
    public static final String ANOTHER_KIND = "contract-another-kind";

    /**
     * The tag of a deployment whose backend another deployment of the same module runs every tier on in the main build
     * (MariaDB and H2 beside PostgreSQL, Sentinel and Cluster beside a standalone Redis): see {@link #ANOTHER_KIND}.
     */
    public static final String ANOTHER_DEPLOYMENT = "contract-another-deployment";

    /**
     * The tag of a contract test that stops or restarts the server (tens of seconds on MariaDB, whose server takes seconds
     * to stop and start). On a deployment tagged {@link #ANOTHER_DEPLOYMENT} as well, {@code ./mvnw verify} leaves it to the
     * slow phase, as it does {@link #ANOTHER_KIND}: the main build runs it on the module's first deployment.
     */
    public static final String RESTART = "contract-restart";

    /** Returns whether {@code tier}, a test class, is a tier of this class that {@link #TIERS_PROPERTY} leaves out. */
    static boolean deselected(Class<?> tier) {
        String tiers = System.getProperty(TIERS_PROPERTY, "").trim();
        if (tiers.isEmpty() || tier.getEnclosingClass() != BackendContract.class) {
            return false;
        }
        return java.util.Arrays.stream(tiers.split(",")).map(String::trim).noneMatch(tier.getSimpleName()::equals);
    }

    /** Returns the hooks of the backend under test; called often, so return a kept instance or a cheap new one. */
    protected abstract BackendHooks hooks();

    /** The plain lock: the whole lease-lock contract (and the session's, where the backend has sessions). */
    @Nested
    class Lock extends LeaseLockContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }
    }

    /** The fair lock: the whole lease-lock contract, and arrival order. */
    @Nested
    @Tag(ANOTHER_KIND)
    class FairLock extends LeaseLockContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }

        @Override
        protected LockKind kind() {
            return LockKind.FAIR_LOCK;
        }
    }

    /** The write side of the read-write lock: the whole lease-lock contract, "locked" meaning a writer holds. */
    @Nested
    @Tag(ANOTHER_KIND)
    class WriteLock extends LeaseLockContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }

        @Override
        protected LockKind kind() {
            return LockKind.READ_WRITE_LOCK;
        }

        @Override
        protected boolean lockedInBackend(String name) {
            return hooks().writeHeldInBackend(name);
        }
    }

    /** Readers and writers of one read-write lock. */
    @Nested
    class ReadWriteLock extends ReadWriteLockContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }
    }

    /** Leased semaphores. */
    @Nested
    class Semaphore extends SemaphoreContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }
    }

    /** The four kinds of one name are four locks (where the backend has all four). */
    @Nested
    class KindsOfOneName extends KindsOfOneNameContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }
    }

    /** The operator's inspector (where the backend's clients have one). */
    @Nested
    class Inspector extends LockInspectorContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }
    }

    /** The backend as the registry finds and opens it (where the registry can open this deployment). */
    @Nested
    class Registry extends BackendProviderContract {
        @Override
        protected BackendHooks hooks() {
            return BackendContract.this.hooks();
        }
    }
}
