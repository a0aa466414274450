package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LeaseLostException.Reason;
import io.distlock.LockClient;
import io.distlock.LockException;
import io.distlock.LockOptions;
import io.distlock.redis.testing.RedisServer;
import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import io.distlock.servers.FreePorts;
import io.distlock.servers.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Redis-specific behaviour: key layout, scripts, batching, security and misconfiguration. */
class RedisLockClientTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static RedisClient rawClient;
    private static StatefulRedisConnection<String, String> rawConnection;

    @BeforeAll
    static void connectRaw() {
        rawClient = RedisClient.create(redis.server().uri());
        rawConnection = rawClient.connect();
    }

    @AfterAll
    static void disconnectRaw() {
        rawConnection.close();
        rawClient.shutdown();
    }

    private static RedisCommands<String, String> raw() {
        return rawConnection.sync();
    }

    @Test
    void aLockIsOneKeyUnderThePrefixWithAHashTagHoldingTokenAndOwner() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder().uri(redis.server().uri()).keyPrefix("shop:").build()) {
            DistributedLock lock = client.getLock("orders:42", LockOptions.builder().leaseTime(Duration.ofSeconds(20)).build());
            assertThat(client.keys().lockKey("orders:42")).isEqualTo("shop:{orders:42}");
            assertThat(client.keys().releaseChannel("orders:42")).isEqualTo("shop:{orders:42}:released");
            long token;
            String owner;
            try (Lease lease = lock.acquire()) {
                token = lease.fencingToken();
                String value = raw().get("shop:{orders:42}");
                assertThat(value).startsWith(token + ":").hasSizeGreaterThan((token + ":").length());
                owner = value.substring((token + ":").length());
                assertThat(raw().pttl("shop:{orders:42}")).isBetween(1L, 20_000L);
            }
            assertThat(raw().get("shop:{orders:42}")).as("the released key keeps the last token and who released it")
                    .isEqualTo(token + "::released:" + owner);
            assertThat(raw().pttl("shop:{orders:42}")).as("and expires, so no key stays per name forever")
                    .isBetween(1L, RedisLockBackend.TOKEN_MEMORY.toMillis());
        }
    }

    @Test
    void namesWithBracesUnicodeOrTheLongestLengthSupportEveryOperation() throws Exception {
        String uri = redis.server().uri();
        try (LockClient holder = RedisLockClient.create(uri)) {
            for (String name : LockNameScenario.NAMES) {
                LockNameScenario.run(name, holder, () -> RedisLockClient.builder().uri(uri).fallbackPoll(Duration.ofMinutes(5)).build(),
                        LockNameScenario.standalone(redis.server().port()));
            }
        }
    }

    /**
     * Once {@code ran} holds (the request ran on the server while the proxy discards replies), cuts the
     * client's connections and lets it reconnect: Lettuce sends the unanswered request again.
     */
    private static CompletableFuture<Void> loseTheReplyAndReconnect(TcpProxy proxy, BooleanSupplier ran) {
        proxy.discardReplies(true);
        return CompletableFuture.runAsync(() -> {
            Await.until(Duration.ofSeconds(10), "the request ran on the server", ran);
            proxy.cut();
            proxy.discardReplies(false);
            proxy.heal();
        });
    }

    private static RedisLockClient through(TcpProxy proxy) {
        return RedisLockClient.builder().uri("redis://127.0.0.1:" + proxy.port()).operationTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void aReleaseWhoseReplyWasLostAndThatIsReplayedAfterAReconnectStillSucceeds() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(redis.server().port()); RedisLockClient client = through(proxy)) {
            DistributedLock lock = client.getLock("replayed-release");
            String key = client.keys().lockKey("replayed-release");
            lock.lock();

            CompletableFuture<Void> reconnected = loseTheReplyAndReconnect(proxy, () -> !RedisKeys.isHeldValue(raw().get(key)));
            lock.unlock(); // the replay finds the lock released by this owner: no LeaseLostException

            reconnected.get(10, TimeUnit.SECONDS);
            assertThat(lock.isLocked()).isFalse();
        }
    }

    @Test
    void aForceUnlockWhoseReplyWasLostAndThatIsReplayedAfterAReconnectStillAnswersTrue() throws Exception {
        try (TcpProxy proxy = TcpProxy.to(redis.server().port()); RedisLockClient admin = through(proxy);
                RedisLockClient holder = RedisLockClient.create(redis.server().uri())) {
            String key = holder.keys().lockKey("replayed-force");
            Lease lease = holder.getLock("replayed-force").acquire(Duration.ofSeconds(5));

            CompletableFuture<Void> reconnected = loseTheReplyAndReconnect(proxy, () -> !RedisKeys.isHeldValue(raw().get(key)));
            assertThat(admin.getLock("replayed-force").forceUnlock()).as("the replay finds this request's own tombstone").isTrue();

            reconnected.get(10, TimeUnit.SECONDS);
            assertThat(admin.getLock("replayed-force").forceUnlock()).as("a new request finds the lock free").isFalse();
            lease.close();
        }
    }

    @Test
    void aRenewalTellsATakeoverFromAForceUnlockFromALostKey() throws Exception {
        try (RedisLockClient client = RedisLockClient.builder().uri(redis.server().uri()).leaseTime(Duration.ofMillis(900)).build();
                RedisLockClient admin = RedisLockClient.create(redis.server().uri())) {
            Map<String, CompletableFuture<LeaseLostException>> lost = new LinkedHashMap<>();
            for (String name : List.of("renew-taken", "renew-forced", "renew-deleted")) {
                Lease lease = client.getLock(name).acquire(Duration.ofSeconds(5));
                CompletableFuture<LeaseLostException> loss = new CompletableFuture<>();
                lease.onLost(loss::complete);
                lost.put(name, loss);
            }

            raw().set(client.keys().lockKey("renew-taken"), "1:someone-else", SetArgs.Builder.px(60_000));
            assertThat(admin.getLock("renew-forced").forceUnlock()).isTrue();
            raw().del(client.keys().lockKey("renew-deleted"));

            assertThat(lost.get("renew-taken").get(10, TimeUnit.SECONDS).reason()).isEqualTo(Reason.TAKEN_OVER);
            assertThat(lost.get("renew-forced").get(10, TimeUnit.SECONDS).reason()).isEqualTo(Reason.FORCE_UNLOCKED);
            assertThat(lost.get("renew-deleted").get(10, TimeUnit.SECONDS).reason()).isEqualTo(Reason.SERVER_LOST_LOCK);
            assertThat(raw().get(client.keys().lockKey("renew-taken"))).as("another owner's lock is left alone").isEqualTo("1:someone-else");
        }
    }

    @Test
    void aReleaseTellsATakeoverFromAForceUnlockFromALostKey() throws Exception {
        LockOptions unrenewed = LockOptions.builder().leaseTime(Duration.ofSeconds(60)).autoRenew(false).build();
        try (RedisLockClient client = RedisLockClient.create(redis.server().uri()); RedisLockClient admin = RedisLockClient.create(redis.server().uri())) {
            DistributedLock taken = client.getLock("release-taken", unrenewed);
            DistributedLock forced = client.getLock("release-forced", unrenewed);
            DistributedLock deleted = client.getLock("release-deleted", unrenewed);
            taken.lock();
            forced.lock();
            deleted.lock();

            raw().set(client.keys().lockKey("release-taken"), "1:someone-else", SetArgs.Builder.px(60_000));
            assertThat(admin.getLock("release-forced").forceUnlock()).isTrue();
            raw().del(client.keys().lockKey("release-deleted"));

            assertThatThrownBy(taken::unlock).isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.reason()).isEqualTo(Reason.TAKEN_OVER));
            assertThatThrownBy(forced::unlock).isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.reason()).isEqualTo(Reason.FORCE_UNLOCKED));
            assertThatThrownBy(deleted::unlock).isInstanceOfSatisfying(LeaseLostException.class, e -> assertThat(e.reason()).isEqualTo(Reason.SERVER_LOST_LOCK));
            assertThat(raw().get(client.keys().lockKey("release-taken"))).as("another owner's lock is left alone").isEqualTo("1:someone-else");
        }
    }

    @Test
    void aRefusedSubscribeIsTriedAgainSoTheNextWaiterIsWokenByTheRelease() throws Exception {
        try (RedisServer secured = RedisServer.launch("--requirepass", "adminpw")) {
            String base = "127.0.0.1:" + secured.port();
            String channel = RedisKeys.defaults().releaseChannel("acl-wake");
            RedisClient admin = RedisClient.create("redis://:adminpw@" + base);
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                // the waiter's user may use the keys but, for now, no channel
                connection.sync().aclSetuser("locker", io.lettuce.core.AclSetuserArgs.Builder.on().resetChannels()
                        .addPassword("lockerpw").keyPattern("distlock:*").allCommands());
                try (LockClient holder = RedisLockClient.create("redis://:adminpw@" + base);
                        LockClient waiter = RedisLockClient.builder().uri("redis://locker:lockerpw@" + base).fallbackPoll(Duration.ofMinutes(5)).build()) {
                    refusedThenGranted(connection.sync(), holder, waiter, channel);
                }
            } finally {
                admin.shutdown();
            }
        }
    }

    private static void refusedThenGranted(RedisCommands<String, String> admin, LockClient holder, LockClient waiter, String channel)
            throws Exception {
        Lease lease = holder.getLock("acl-wake", LockOptions.builder().leaseTime(Duration.ofMinutes(2)).build()).acquire(Duration.ofSeconds(5));

        assertThat(waiter.getLock("acl-wake").tryAcquire(Duration.ofMillis(300))).isEmpty();
        assertThat(admin.aclLog()).as("the waiter's subscribe was refused")
                .anySatisfy(entry -> assertThat(entry).containsEntry("reason", "channel"));

        admin.aclSetuser("locker", io.lettuce.core.AclSetuserArgs.Builder.channelPattern("distlock:*"));
        CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return waiter.getLock("acl-wake").acquire(Duration.ofMinutes(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Await.until(Duration.ofSeconds(10), "the next waiter subscribed", () -> admin.pubsubNumsub(channel).get(channel) == 1);
        lease.close();

        // neither the fallback poll (5 min) nor the holder's lease (2 min) can explain a wake-up within 20 s
        waiting.get(20, TimeUnit.SECONDS).close();
    }

    @Test
    void locksKeepWorkingAfterTheServersScriptCacheIsFlushed() throws Exception {
        try (RedisLockClient client = RedisLockClient.create(redis.server().uri())) {
            DistributedLock lock = client.getLock("flushed");
            lock.acquire().close();
            raw().scriptFlush();
            try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
                raw().scriptFlush();
            }
            assertThat(lock.isLocked()).isFalse();
        }
    }

    @Test
    void theWatchdogRenewsManyLeasesInFewCommands() throws Exception {
        int locks = 300;
        Duration leaseTime = Duration.ofMillis(1200);
        try (RedisLockClient client = RedisLockClient.create(redis.server().uri())) {
            List<Lease> leases = new ArrayList<>();
            for (int i = 0; i < locks; i++) {
                leases.add(client.getLock("batch-" + i, LockOptions.builder().leaseTime(leaseTime).build()).acquire());
            }
            long before = scriptCalls();
            long start = System.nanoTime();
            Await.until(Duration.ofSeconds(30), "three lease times have passed",
                    () -> System.nanoTime() - start > leaseTime.multipliedBy(3).toNanos());
            long renewalCommands = scriptCalls() - before;
            for (int i = 0; i < locks; i++) {
                assertThat(RedisKeys.isHeldValue(raw().get(RedisKeys.defaults().lockKey("batch-" + i)))).as("lock %d still held", i).isTrue();
                assertThat(leases.get(i).isValid()).isTrue();
            }
            // one command per lock per interval would be about 9 x 300 = 2700; batches of up to 200 need a few dozen
            assertThat(renewalCommands).as("script calls spent on renewals").isLessThan(100);
            leases.forEach(Lease::close);
        }
    }

    private static long scriptCalls() {
        long calls = 0;
        for (String line : raw().info("commandstats").split("\r?\n")) {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
                String field = line.substring(line.indexOf("calls=") + 6);
                calls += Long.parseLong(field.substring(0, field.indexOf(',')));
            }
        }
        return calls;
    }

    @Test
    void aKeyOfAnotherTypeIsReportedAndLeftAlone() throws Exception {
        raw().hset(RedisKeys.defaults().lockKey("foreign"), "field", "value");
        try (RedisLockClient client = RedisLockClient.create(redis.server().uri())) {
            assertThatThrownBy(() -> client.getLock("foreign").acquire(Duration.ofSeconds(1)))
                    .isInstanceOf(LockException.class).hasMessageContaining("foreign").hasMessageContaining("WRONGTYPE");
        }
        assertThat(raw().hget(RedisKeys.defaults().lockKey("foreign"), "field")).isEqualTo("value");
    }

    @Test
    void badUrisAndPrefixesAreRejectedAndAnUnreachableServerFailsFast() {
        assertThatThrownBy(() -> RedisLockClient.create("http://127.0.0.1:1")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("redis://");
        assertThatThrownBy(() -> RedisLockClient.create(" ")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri");
        assertThatThrownBy(() -> RedisLockClient.builder().build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("uri");
        assertThatThrownBy(() -> RedisLockClient.builder().keyPrefix("a{b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisLockClient.builder().operationTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("operationTimeout");
        assertThatThrownBy(() -> RedisLockClient.create("redis://user:s3cret@127.0.0.1:" + FreePorts.next()))
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("127.0.0.1")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cret"));
    }

    @Test
    void passwordsAndAclUsersWorkAndMisconfigurationIsNamed() throws Exception {
        try (RedisServer secured = RedisServer.launch("--requirepass", "adminpw")) {
            String base = "127.0.0.1:" + secured.port();
            assertThatThrownBy(() -> RedisLockClient.create("redis://:wrong@" + base))
                    .isInstanceOf(LockException.class).isNotInstanceOf(BackendUnavailableException.class)
                    .hasMessageContaining("refused");
            RedisClient admin = RedisClient.create("redis://:adminpw@" + base);
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                connection.sync().aclSetuser("locker", io.lettuce.core.AclSetuserArgs.Builder.on()
                        .addPassword("lockerpw").keyPattern("distlock:*").channelPattern("distlock:*").allCommands());
            } finally {
                admin.shutdown();
            }
            try (LockClient client = RedisLockClient.create("redis://locker:lockerpw@" + base)) {
                try (Lease lease = client.getLock("acl").acquire(Duration.ofSeconds(5))) {
                    assertThat(lease.isValid()).isTrue();
                }
            }
            try (LockClient outside = RedisLockClient.builder().uri("redis://locker:lockerpw@" + base).keyPrefix("other:").build()) {
                assertThatThrownBy(() -> outside.getLock("acl").acquire(Duration.ofSeconds(5)))
                        .isInstanceOf(LockException.class).hasMessageContaining("NOPERM").hasMessageContaining("acl");
            }
        }
    }

    /**
     * The Redis ACL README.md documents for a distlock user (standalone and Sentinel data nodes), word for word:
     * every kind, a waiter woken by a release, the inspector and a force-unlock work with it and nothing more.
     */
    static final String DOCUMENTED_ACL = "on >lockerpw ~distlock:* &distlock:* -@all +evalsha +eval +get +set +pexpire "
            + "+pexpireat +pttl +time +exists +publish +hget +hset +hmget +hdel +hincrby +hexists +hgetall +zadd +zrem +zrange "
            + "+zrangebyscore +zscore +zcard +subscribe +unsubscribe +scan +ping +hello +auth";

    @Test
    void aUserWithOnlyTheDocumentedAclUsesEveryKindAndTheInspector() throws Exception {
        try (RedisServer secured = RedisServer.launch("--requirepass", "adminpw")) {
            String base = "127.0.0.1:" + secured.port();
            RedisClient admin = RedisClient.create("redis://:adminpw@" + base);
            try (StatefulRedisConnection<String, String> connection = admin.connect()) {
                io.lettuce.core.protocol.CommandArgs<String, String> setuser =
                        new io.lettuce.core.protocol.CommandArgs<>(io.lettuce.core.codec.StringCodec.UTF8).add("SETUSER").add("locker");
                for (String rule : DOCUMENTED_ACL.split(" ")) {
                    setuser.add(rule);
                }
                assertThat(connection.sync().dispatch(io.lettuce.core.protocol.CommandType.ACL,
                        new io.lettuce.core.output.StatusOutput<>(io.lettuce.core.codec.StringCodec.UTF8), setuser)).isEqualTo("OK");
                String uri = "redis://locker:lockerpw@" + base;
                try (RedisLockClient holder = RedisLockClient.builder().uri(uri).fallbackPoll(Duration.ofMinutes(5)).build();
                        RedisLockClient waiter = RedisLockClient.builder().uri(uri).fallbackPoll(Duration.ofMinutes(5)).build()) {
                    useEveryKind(holder, waiter);
                }
                assertThat(connection.sync().aclLog()).as("nothing was refused").isEmpty();
            } finally {
                admin.shutdown();
            }
        }
    }

    /**
     * What an application does with every kind, as a restricted user would: a holder whose lease is renewed while
     * another client waits, a waiter woken by the release (its fallback poll must be minutes, so that only a
     * notification explains a prompt wake-up), a semaphore permit, the inspector, and a force-unlock.
     */
    static void useEveryKind(RedisLockClient holder, RedisLockClient waiter) throws Exception {
        LockOptions shortLease = LockOptions.builder().leaseTime(Duration.ofSeconds(3)).build();
        // each pair: a holder's lock and the same lock as another client's waiter sees it
        for (List<DistributedLock> pair : List.of(List.of(holder.getLock("acl-plain", shortLease), waiter.getLock("acl-plain")),
                List.of(holder.getFairLock("acl-fair", shortLease), waiter.getFairLock("acl-fair")),
                List.of(holder.getReadWriteLock("acl-rw", shortLease).writeLock(), waiter.getReadWriteLock("acl-rw").readLock()))) {
            DistributedLock lock = pair.get(0);
            DistributedLock same = pair.get(1);
            Lease lease = lock.acquire(Duration.ofSeconds(5));
            CompletableFuture<Lease> waiting = CompletableFuture.supplyAsync(() -> {
                try {
                    return same.acquire(Duration.ofMinutes(1));
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            // the watchdog renews at a third of the lease: the lease left falls below 2.2 s, then rises again
            Await.until(Duration.ofSeconds(10), "a third of " + lock.name() + "'s lease passed", () -> lease.remaining().toMillis() < 2_200);
            Await.until(Duration.ofSeconds(10), "a renewal of " + lock.name(), () -> lease.remaining().toMillis() > 2_500);
            assertThat(waiting).as("the waiter waits while the lock is held").isNotDone();
            assertThat(holder.inspector().orElseThrow().show(lock.name())).as("the inspector sees %s", lock.name()).isNotEmpty();
            lease.close();
            // neither the fallback poll (5 min) nor a lease can explain a wake-up within 20 s
            waiting.get(20, TimeUnit.SECONDS).close();
        }
        io.distlock.DistributedSemaphore permits = holder.getSemaphore("acl-permits", 2);
        try (Lease permit = permits.acquire(Duration.ofSeconds(5))) {
            assertThat(permits.availablePermits()).isEqualTo(1);
            assertThat(holder.inspector().orElseThrow().list("acl-*")).hasSizeGreaterThanOrEqualTo(1);
        }
        Lease stuck = holder.getLock("acl-stuck").acquire(Duration.ofSeconds(5));
        waiter.getLock("acl-stuck").forceUnlock();
        Await.until(Duration.ofSeconds(20), "the force-unlocked holder learns it", () -> !stuck.isValid());
    }

    @Test
    void sharedClientResourcesCarryTheLocksAndOutliveTheClient() throws Exception {
        ClientResources shared = DefaultClientResources.create();
        try {
            try (RedisLockClient locks = RedisLockClient.builder().uri(redis.server().uri()).clientResources(shared).build();
                    Lease lease = locks.getLock("shared-resources").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.isValid()).isTrue();
                assertThat(raw().get("distlock:{shared-resources}")).startsWith(lease.fencingToken() + ":");
            }
            // closing the lock client left the application's threads running: its own client still works on them
            RedisClient application = RedisClient.create(shared, redis.server().uri());
            try (StatefulRedisConnection<String, String> connection = application.connect()) {
                assertThat(connection.sync().ping()).isEqualTo("PONG");
            } finally {
                application.shutdown();
            }
        } finally {
            shared.shutdown(0, 2, TimeUnit.SECONDS);
        }
        assertThatThrownBy(() -> RedisLockClient.builder().clientResources(null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("clientResources");
    }
}
