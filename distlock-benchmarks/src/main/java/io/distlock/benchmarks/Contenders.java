package io.distlock.benchmarks;

import io.distlock.LockClients;
import io.distlock.cli.bench.BasicContenders;
import io.distlock.cli.bench.Contender;
import io.distlock.LockClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.jspecify.annotations.Nullable;

/** The implementations measured side by side; each gets its own client, as an application would. */
final class Contenders {
    static final List<String> REDIS = List.of("raw-eval", "distlock-redis", "distlock-redis-cohort", "redisson-rlock", "redisson-fenced",
            "spring-spin", "spring-pubsub", "textbook-setnx", "distlock-fair", "redisson-fair");
    static final List<String> ZOOKEEPER = List.of("distlock-zookeeper", "curator-mutex");
    static final List<String> ETCD = List.of("distlock-etcd", "jetcd-lock");

    /** Where the servers are: a Redis URI, a ZooKeeper connect string, etcd endpoints (null when not needed). */
    record Targets(@Nullable String redis, @Nullable String zooKeeper, @Nullable String etcd) {
        /** Returns the targets as three arguments of a worker JVM ("null" for none). */
        List<String> args() {
            return List.of(String.valueOf(redis), String.valueOf(zooKeeper), String.valueOf(etcd));
        }

        /** Reads the targets from three worker arguments starting at {@code from}. */
        static Targets from(String[] args, int from) {
            return new Targets(orNull(args[from]), orNull(args[from + 1]), orNull(args[from + 2]));
        }

        private static @Nullable String orNull(String arg) {
            return arg.equals("null") ? null : arg;
        }
    }

    private Contenders() {}

    /** Returns a Redisson client on the single server at {@code uri}, configured as Redisson's documentation shows. */
    static RedissonClient redissonOn(String uri) {
        Config config = new Config();
        config.useSingleServer().setAddress(uri);
        return Redisson.create(config);
    }

    /** The registry's target for etcd endpoints as jetcd takes them ({@code http://host:port,http://host:port}). */
    static String etcdTarget(@Nullable String endpoints) {
        if (endpoints == null) {
            throw new IllegalArgumentException("no etcd endpoints for distlock-etcd");
        }
        return "etcd://" + endpoints.replace("http://", "");
    }

    static Contender create(String id, Targets targets) {
        String redisUri = targets.redis();
        String zooKeeper = targets.zooKeeper();
        return switch (id) {
            case "distlock-etcd" -> BasicContenders.distlock(id, LockClients.open(etcdTarget(targets.etcd()), "bench"));
            case "jetcd-lock" -> new JetcdLock(targets.etcd());
            case "raw-eval" -> BasicContenders.rawEval(redisUri);
            // every grant through the server, as before local handoffs were the default: comparable with the earlier runs
            case "distlock-redis" -> BasicContenders.distlock(id, LockClients.open(redisUri), io.distlock.LockOptions.builder().localHandoffs(0).build());
            case "distlock-redis-cohort" -> BasicContenders.distlock(id, LockClients.open(redisUri),
                    io.distlock.LockOptions.builder().localHandoffs(16).build()); // the default since 2026-11-28
            case "distlock-zookeeper" -> BasicContenders.distlock(id, LockClients.open("zk://" + zooKeeper, "bench"));
            case "distlock-fair" -> new FairDistlock(LockClients.open(redisUri));
            case "redisson-rlock" -> new RedissonLock(id, redisUri, false);
            case "redisson-fenced" -> new RedissonLock(id, redisUri, true);
            case "redisson-fair" -> new RedissonFairLock(redisUri);
            case "textbook-setnx" -> new Textbook(redisUri);
            case "spring-spin" -> new SpringRedisLock(id, redisUri, false);
            case "spring-pubsub" -> new SpringRedisLock(id, redisUri, true);
            case "curator-mutex" -> new CuratorMutex(zooKeeper);
            case "distlock-rw", "redisson-rw", "distlock-semaphore", "redisson-semaphore" -> KindContenders.create(id, redisUri);
            case "distlock-zookeeper-fair", "distlock-zookeeper-rw", "distlock-zookeeper-semaphore" -> KindContenders.onTarget(id, "zk://" + zooKeeper);
            case "distlock-etcd-fair", "distlock-etcd-rw", "distlock-etcd-semaphore" -> KindContenders.onTarget(id, etcdTarget(targets.etcd()));
            default -> throw new IllegalArgumentException("unknown implementation '" + id + "'");
        };
    }

    private static final class RedissonLock implements Contender {
        private final String id;
        private final RedissonClient redisson;
        private final boolean fenced;

        RedissonLock(String id, String uri, boolean fenced) {
            this.id = id;
            this.fenced = fenced;
            this.redisson = redissonOn(uri);
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void lock(String lockName) {
            if (fenced) {
                redisson.getFencedLock("fenced:" + lockName).lockAndGetToken();
            } else {
                redisson.getLock(lockName).lock();
            }
        }

        @Override
        public void unlock(String lockName) {
            if (fenced) {
                redisson.getFencedLock("fenced:" + lockName).unlock();
            } else {
                redisson.getLock(lockName).unlock();
            }
        }

        @Override
        public void close() {
            redisson.shutdown();
        }
    }

    /** distlock's fair lock on Redis (granted on release). */
    private static final class FairDistlock implements Contender {
        private final LockClient client;

        FairDistlock(LockClient client) {
            this.client = client;
        }

        @Override
        public String id() {
            return "distlock-fair";
        }

        @Override
        public void lock(String lockName) {
            client.getFairLock(lockName).lock();
        }

        @Override
        public void unlock(String lockName) {
            client.getFairLock(lockName).unlock();
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** Redisson's RFairLock, as its documentation shows it. */
    private static final class RedissonFairLock implements Contender {
        private final RedissonClient redisson;

        RedissonFairLock(String uri) {
            this.redisson = redissonOn(uri);
        }

        @Override
        public String id() {
            return "redisson-fair";
        }

        @Override
        public void lock(String lockName) {
            redisson.getFairLock("fair:" + lockName).lock();
        }

        @Override
        public void unlock(String lockName) {
            redisson.getFairLock("fair:" + lockName).unlock();
        }

        @Override
        public void close() {
            redisson.shutdown();
        }
    }

    /** SET NX PX, retry after 1 ms, Lua compare-and-delete: the blog-post lock. */
    private static final class Textbook implements Contender {
        private static final String RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;

        Textbook(String uri) {
            client = RedisClient.create(uri);
            connection = client.connect();
        }

        @Override
        public String id() {
            return "textbook-setnx";
        }

        private final ThreadLocal<String> owner = new ThreadLocal<>();

        @Override
        public void lock(String lockName) throws InterruptedException {
            RedisCommands<String, String> redis = connection.sync();
            String me = UUID.randomUUID().toString();
            while (!"OK".equals(redis.set("textbook:" + lockName, me, SetArgs.Builder.nx().px(30_000)))) {
                Thread.sleep(1);
            }
            owner.set(me);
        }

        @Override
        public void unlock(String lockName) {
            connection.sync().eval(RELEASE, ScriptOutputType.INTEGER, new String[] {"textbook:" + lockName}, owner.get());
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static final class CuratorMutex implements Contender {
        private final CuratorFramework curator;
        private final Map<String, InterProcessMutex> mutexes = new ConcurrentHashMap<>();

        CuratorMutex(String connectString) {
            curator = CuratorFrameworkFactory.newClient(connectString, new ExponentialBackoffRetry(50, 3));
            curator.start();
            try {
                curator.blockUntilConnected(20, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String id() {
            return "curator-mutex";
        }

        @Override
        public void lock(String lockName) throws Exception {
            // InterProcessMutex is per-thread reentrant, so one instance per name serves all threads
            mutexes.computeIfAbsent(lockName, n -> new InterProcessMutex(curator, "/curator-bench/" + n)).acquire();
        }

        @Override
        public void unlock(String lockName) throws Exception {
            mutexes.get(lockName).release();
        }

        @Override
        public void close() {
            curator.close();
        }
    }
}
