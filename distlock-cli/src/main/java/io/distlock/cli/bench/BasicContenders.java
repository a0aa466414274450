package io.distlock.cli.bench;

import io.distlock.DistributedLock;
import io.distlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/** The contenders that need nothing but distlock and Lettuce: the raw Redis limit and a distlock client. */
public final class BasicContenders {
    private BasicContenders() {}

    /** Returns the raw limit: two trivial script calls per cycle on one Lettuce connection. */
    public static Contender rawEval(String redisUri) {
        return new RawEval(redisUri);
    }

    /** Returns a contender that runs lock() + unlock() on {@code client}; it closes the client. */
    public static Contender distlock(String id, LockClient client) {
        return new Distlock(id, client, null);
    }

    /** As {@link #distlock(String, LockClient)}, with these options for every lock instead of the client's defaults. */
    public static Contender distlock(String id, LockClient client, io.distlock.LockOptions options) {
        return new Distlock(id, client, options);
    }

    /** The least any lock+unlock can cost: two trivial script calls on one Lettuce connection. */
    static final class RawEval implements Contender {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final String sha;

        RawEval(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
            sha = connection.sync().scriptLoad("return 1");
        }

        @Override
        public String id() {
            return "raw-eval";
        }

        @Override
        public void lock(String lockName) {
            connection.sync().evalsha(sha, ScriptOutputType.INTEGER, new String[] {lockName});
        }

        @Override
        public void unlock(String lockName) {
            connection.sync().evalsha(sha, ScriptOutputType.INTEGER, new String[] {lockName});
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    static final class Distlock implements Contender {
        private final String id;
        private final LockClient client;
        private final Map<String, DistributedLock> locks = new ConcurrentHashMap<>();
        private final java.util.function.Function<String, DistributedLock> open;

        Distlock(String id, LockClient client, io.distlock.@org.jspecify.annotations.Nullable LockOptions options) {
            this.id = id;
            this.client = client;
            this.open = options == null ? client::getLock : name -> client.getLock(name, options);
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void lock(String lockName) {
            locks.computeIfAbsent(lockName, open).lock();
        }

        @Override
        public void unlock(String lockName) {
            Objects.requireNonNull(locks.get(lockName), "unlock of a lock never taken").unlock();
        }

        @Override
        public void close() {
            client.close();
        }
    }

}
