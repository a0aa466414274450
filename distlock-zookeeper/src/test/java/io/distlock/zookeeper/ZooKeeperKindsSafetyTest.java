package io.distlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedLock;
import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockInspector.Holder;
import io.distlock.LockKind;
import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Interleavings of the ZooKeeper kinds (fair, read-write, semaphore) that once broke them (issue 28, findings 1, 3,
 * 7, 8, 9 and 10 on ZooKeeper). Another client acts at a chosen point of a call through the backend's seams; every
 * test checks the server's own nodes. Waiters poll every five minutes, so only a wake-up can grant them in time.
 * Tagged {@code slow} (66 s): {@code ./mvnw verify} leaves it out, {@code -Pslow} and CI run it.
 */
@Tag("slow")
class ZooKeeperKindsSafetyTest {
    private static final Duration SOON = Duration.ofSeconds(20);
    private static ZooKeeperServer server;
    private static RawZooKeeper raw;
    private final List<ZooKeeperLockClient> clients = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startServer() {
        server = ZooKeeperServer.launch();
        raw = new RawZooKeeper(server.connectString());
    }

    @AfterAll
    static void stopServer() {
        raw.close();
        server.close();
    }

    @AfterEach
    void closeAll() {
        threads.shutdownNow();
        clients.forEach(ZooKeeperLockClient::close);
    }

    private ZooKeeperLockClient client() {
        ZooKeeperLockClient client = ZooKeeperLockClient.builder().connectString(server.connectString())
                .sessionTimeout(ZooKeeperClientFactory.SESSION_TIMEOUT).fallbackPoll(Duration.ofMinutes(5)).build();
        clients.add(client);
        return client;
    }

    private static <T> T within(Future<T> future) throws Exception {
        return future.get(SOON.toSeconds(), TimeUnit.SECONDS);
    }

    /**
     * Finding 7: while a writer held beside the reader it downgraded to, the write rule saw "a downgraded reader ahead"
     * and counted no writer: writeLock().isLocked() said free, the inspector listed only the reader, and a force-unlock
     * ended the reader and left the writer holding.
     */
    @Test
    void aWriterThatDowngradedIsSeenByOtherClientsTheInspectorAndForceUnlock() throws Exception {
        String name = "downgraded-" + System.nanoTime();
        DistributedReadWriteLock holder = client().getReadWriteLock(name);
        holder.writeLock().lock();
        holder.readLock().lock(); // the downgrade: a reader beside the write hold
        assertThat(raw.children("/~rw", name)).hasSize(2);

        ZooKeeperLockClient other = client();
        DistributedReadWriteLock seen = other.getReadWriteLock(name);
        assertThat(raw.writerHeld(name)).as("the raw write rule sees the writer").isTrue();
        assertThat(seen.writeLock().isLocked()).as("writeLock().isLocked() of another client").isTrue();
        assertThat(other.inspector().orElseThrow().show(name, LockKind.READ_WRITE_LOCK)).get().satisfies(state -> {
            assertThat(state.holders()).extracting(Holder::role).containsExactlyInAnyOrder("write", "read");
            assertThat(state.waiters()).isZero();
        });
        assertThat(seen.writeLock().tryAcquire(Duration.ZERO)).as("another writer").isEmpty();
        assertThat(seen.readLock().tryAcquire(Duration.ZERO)).as("a reader beside the writer").isEmpty();

        assertThat(seen.forceUnlock()).isTrue();
        assertThat(raw.children("/~rw", name)).as("the writer's node and its reader's, both ended").isEmpty();
        assertThat(seen.writeLock().tryAcquire(SOON)).as("a writer once both are gone").isPresent().get().satisfies(Lease::close);
    }

    /**
     * Finding 7, the other writer's side: a writer that arrives while the downgraded reader holds alone waits for it,
     * and a reader that arrives then shares it; the waiting writer gets the lock once the reader leaves.
     */
    @Test
    void aReaderMadeByADowngradeKeepsTheNextWriterOutUntilItLeaves() throws Exception {
        String name = "downgraded-next-" + System.nanoTime();
        DistributedReadWriteLock holder = client().getReadWriteLock(name);
        holder.writeLock().lock();
        holder.readLock().lock();
        Future<Optional<Lease>> writer = threads.submit(() -> client().getReadWriteLock(name).writeLock().tryAcquire(SOON.multipliedBy(2)));
        Await.until(SOON, "a writer queues", () -> raw.children("/~rw", name).size() == 3);
        holder.writeLock().unlock();
        Await.until(SOON, "the write hold is gone", () -> raw.children("/~rw", name).size() == 2);
        assertThat(raw.writerHeld(name)).as("the waiting writer holds nothing").isFalse();
        assertThat(writer.isDone()).isFalse();
        assertThat(client().getReadWriteLock(name).writeLock().isLocked()).isFalse();
        holder.readLock().unlock();
        assertThat(within(writer)).as("the writer, once the downgraded reader left").isPresent();
        assertThat(raw.writerHeld(name)).isTrue();
    }

    /**
     * Finding 3: a read-write force-unlock was two calls (the writer's side, then the readers'); a reader granted in
     * between, when the writer's node was gone, was ended by the second call while the writer queued behind it took the
     * lock. A force-unlock ends the holders of one instant, and none granted after it.
     */
    @Test
    void aReadWriteForceUnlockEndsTheHoldersOfOneInstantAndNoneGrantedAfterIt() throws Exception {
        String name = "rw-force-" + System.nanoTime();
        Lease writer = client().getReadWriteLock(name).writeLock().acquire(SOON);
        String writerNode = raw.children("/~rw", name).get(0);
        Future<Optional<Lease>> reader = threads.submit(() -> client().getReadWriteLock(name).readLock().tryAcquire(SOON.multipliedBy(2)));
        Await.until(SOON, "a reader queues", () -> raw.children("/~rw", name).size() == 2);
        String readerNode = raw.children("/~rw", name).get(1);
        Future<Optional<Lease>> nextWriter = threads.submit(() -> client().getReadWriteLock(name).writeLock().tryAcquire(SOON.multipliedBy(2)));
        Await.until(SOON, "a writer queues behind it", () -> raw.children("/~rw", name).size() == 3);

        ZooKeeperLockClient admin = client();
        admin.backend().seams().forceUnlockRead = () -> {
            if (!raw.children("/~rw", name).contains(writerNode)) {
                // the writer's node went before the readers' were read: the reader is granted in between
                Await.until(SOON, "the reader is granted", reader::isDone);
            }
        };
        assertThat(admin.getReadWriteLock(name).forceUnlock()).as("someone held it").isTrue();

        Lease read = within(reader).orElseThrow();
        assertThat(raw.children("/~rw", name)).as("the reader granted after the force-unlock, and the writer behind it")
                .hasSize(2).first().isEqualTo(readerNode);
        assertThat(raw.readWriteHolders(name)).containsExactly(readerNode);
        assertThat(nextWriter.isDone()).isFalse();
        Await.until(SOON, "the ended writer learns it lost its lock", () -> !writer.isValid());
        assertThat(read.isValid()).isTrue();
        read.close();
        assertThat(within(nextWriter)).isPresent();
    }

    /**
     * Finding 3, the retry: a holder that leaves between the force-unlock's read and its delete makes the delete fail
     * as a whole (versions checked); the force-unlock reads again and ends the holders of that instant.
     */
    @Test
    void aReadWriteForceUnlockWhoseHoldersChangedAfterItsReadTriesAgainOnTheNewOnes() throws Exception {
        String name = "rw-force-retry-" + System.nanoTime();
        Lease writer = client().getReadWriteLock(name).writeLock().acquire(SOON);
        Future<Optional<Lease>> reader = threads.submit(() -> client().getReadWriteLock(name).readLock().tryAcquire(SOON.multipliedBy(2)));
        Await.until(SOON, "a reader queues", () -> raw.children("/~rw", name).size() == 2);
        Future<Optional<Lease>> nextWriter = threads.submit(() -> client().getReadWriteLock(name).writeLock().tryAcquire(SOON.multipliedBy(2)));
        Await.until(SOON, "a writer queues behind it", () -> raw.children("/~rw", name).size() == 3);

        ZooKeeperLockClient admin = client();
        AtomicBoolean once = new AtomicBoolean();
        admin.backend().seams().forceUnlockRead = () -> {
            if (once.compareAndSet(false, true)) {
                writer.close(); // the writer leaves after the read: the reader is granted before the delete
                Await.until(SOON, "the reader is granted", reader::isDone);
            }
        };
        assertThat(admin.getReadWriteLock(name).forceUnlock()).isTrue();
        Lease read = within(reader).orElseThrow();
        assertThat(raw.readWriteHolders(name)).as("holders after the force-unlock").isNotEmpty().allMatch(QueueRule::isWriter);
        assertThat(within(nextWriter)).as("the writer behind the ended reader").isPresent();
        Await.until(SOON, "the ended reader learns it lost its lock", () -> !read.isValid());
    }

    /**
     * Finding 8: a wait that times out or is interrupted takes its node with it, on every kind, while its client's
     * session lives on; the next waiter gets the lock when the holder leaves.
     */
    @Test
    void aWaitThatTimesOutOrIsInterruptedLeavesNoNodeAndTheNextWaiterGetsTheLock() throws Exception {
        for (String kind : List.of("fair", "read", "write", "semaphore")) {
            String name = "orphan-" + kind + "-" + System.nanoTime();
            String root = kind.equals("fair") ? "/~fair" : kind.equals("semaphore") ? "/~sem" : "/~rw";
            Function<ZooKeeperLockClient, DistributedLock> lockOf = switch (kind) {
                case "fair" -> c -> c.getFairLock(name);
                case "read" -> c -> c.getReadWriteLock(name).readLock();
                case "write" -> c -> c.getReadWriteLock(name).writeLock();
                default -> null;
            };
            Lease holder;
            if (lockOf == null) {
                holder = client().getSemaphore(name, 1).acquire(SOON);
            } else if (kind.equals("read")) {
                holder = client().getReadWriteLock(name).writeLock().acquire(SOON); // readers wait for a writer
            } else {
                holder = lockOf.apply(client()).acquire(SOON);
            }
            List<String> held = raw.children(root, name);
            assertThat(held).hasSize(1);

            ZooKeeperLockClient waiting = client();
            Optional<Lease> timedOut = lockOf == null ? waiting.getSemaphore(name, 1).tryAcquire(Duration.ofMillis(500))
                    : lockOf.apply(waiting).tryAcquire(Duration.ofMillis(500));
            assertThat(timedOut).as(kind + ": a wait that timed out").isEmpty();
            assertThat(raw.children(root, name)).as(kind + ": nodes after the timeout").isEqualTo(held);

            Future<Lease> interrupted = threads.submit(() -> lockOf == null ? waiting.getSemaphore(name, 1).acquire()
                    : lockOf.apply(waiting).acquire());
            Await.until(SOON, kind + ": the waiter queues", () -> raw.children(root, name).size() == 2);
            interrupted.cancel(true);
            Await.until(SOON, kind + ": the interrupted waiter's node is gone", () -> raw.children(root, name).equals(held));

            Future<Optional<Lease>> next = threads.submit(() -> lockOf == null ? client().getSemaphore(name, 1).tryAcquire(SOON)
                    : lockOf.apply(client()).tryAcquire(SOON));
            Await.until(SOON, kind + ": the next waiter queues", () -> raw.children(root, name).size() == 2);
            holder.close();
            assertThat(within(next)).as(kind + ": the next waiter, woken by the release").isPresent();
            assertThat(waiting.getFairLock("alive-" + name).tryAcquire(SOON)).as("the first waiter's client still works").isPresent();
        }
    }

    /**
     * Finding 1, refused: a client asking a semaphore in use with another number of permits is refused, takes no
     * place in the queue, counts free permits against the semaphore's own number, and the waiter gets the next permit.
     */
    @Test
    void aClientAskingWithAnotherNumberOfPermitsIsRefusedAndGrantsNoPermitBeyondTheCount() throws Exception {
        String name = "sem-count-" + System.nanoTime();
        List<Lease> held = new ArrayList<>(List.of(client().getSemaphore(name, 2).acquire(SOON), client().getSemaphore(name, 2).acquire(SOON)));
        Future<Optional<Lease>> waiter = threads.submit(() -> client().getSemaphore(name, 2).tryAcquire(SOON));
        Await.until(SOON, "a third client waits for a permit", () -> raw.children("/~sem", name).size() == 3);

        ZooKeeperLockClient other = client();
        assertThatThrownBy(() -> other.getSemaphore(name, 3).tryAcquire(Duration.ofSeconds(1))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("in use with 2 permits, asked with 3");
        assertThat(other.getSemaphore(name, 3).availablePermits()).as("free permits, counted against the semaphore's own number").isZero();
        held.remove(0).close();
        assertThat(within(waiter)).as("the waiter gets the freed permit").isPresent();
        assertThat(raw.holders("/~sem", QueueRule.PERMIT, name, Integer.MAX_VALUE)).hasSize(2);
        assertThat(other.getSemaphore(name, 3).availablePermits()).isZero();
    }

    /**
     * Finding 1, a count changed under the queue: a client with another number found itself alone in the queue and
     * stored its number, while clients with the old number joined between its look and its write and were let in on
     * the old one. Clients of both numbers then shared one queue, each judging its own turn by its own number: a third
     * holder of a two-permit semaphore. Each join now confirms the number it read with a versioned write, so one of
     * the two writes fails and that client reads again.
     */
    @Test
    void aClientThatFindsItselfAloneCannotChangeTheNumberOfPermitsUnderClientsJoiningMeanwhile() throws Exception {
        String name = "sem-alone-" + System.nanoTime();
        client().getSemaphore(name, 2).acquire(SOON).close(); // the semaphore's parent keeps "2"
        ZooKeeperLockClient changing = client();
        List<Future<Optional<Lease>>> joined = new ArrayList<>();
        AtomicBoolean once = new AtomicBoolean();
        changing.backend().seams().permitsJudged = () -> {
            if (once.compareAndSet(false, true)) {
                // two clients with the old number join between its look at the queue and its write of the number
                for (int i = 0; i < 2; i++) {
                    ZooKeeperLockClient joining = client();
                    joined.add(threads.submit(() -> joining.getSemaphore(name, 2).tryAcquire(SOON)));
                    int size = i + 2;
                    Await.until(SOON, "a client with two permits joined", () -> raw.children("/~sem", name).size() == size);
                }
                Await.until(SOON, "the first of them holds", () -> joined.get(0).isDone());
            }
        };
        Optional<Lease> changed;
        try {
            changed = changing.getSemaphore(name, 3).tryAcquire(SOON);
        } catch (IllegalStateException refused) {
            assertThat(refused).hasMessageContaining("in use with 2 permits, asked with 3");
            changed = Optional.empty();
        }
        // a later client with three permits: refused, or (if the number did change) waiting at the fourth place
        Future<Optional<Lease>> later = threads.submit(() -> client().getSemaphore(name, 3).tryAcquire(SOON));
        Await.until(SOON, "the later client is refused or queued", () -> later.isDone() || raw.children("/~sem", name).size() == 4);
        within(joined.get(0)).orElseThrow().close(); // a permit of two comes free
        assertThat(within(joined.get(1))).as("the second client with two permits").isPresent();
        Optional<Lease> third = Optional.empty();
        try {
            third = within(later);
        } catch (ExecutionException refused) {
            assertThat(refused).hasRootCauseInstanceOf(IllegalStateException.class);
        }
        assertThat(raw.children("/~sem", name)).as("holders of a semaphore whose clients of two permits hold"
                + (changed.isPresent() ? ", beside a client of three that changed the number" : "")).hasSizeLessThanOrEqualTo(2);
        changed.ifPresent(Lease::close);
        third.ifPresent(Lease::close);
    }

    /**
     * Finding 10: how many distinct names (and numbers of permits) the retained-state test goes through: 10,000 in the
     * build (about a minute); run with -Ddistlock.zk.distinct=100000 for the count of issue 28 (docs/guarantees.md).
     */
    private static final int DISTINCT = Integer.getInteger("distlock.zk.distinct", 10_000);

    /**
     * Finding 10: acquiring and releasing {@link #DISTINCT} distinct names, half of them semaphores each with its own
     * number of permits, leaves the client's node map and its ZooKeeper watches where they were. (The engine's side,
     * one LockSpace per number of permits, is SlotLifecycleTest's.)
     */
    @Test
    @Timeout(value = 40, unit = TimeUnit.MINUTES)
    void distinctNamesAndNumbersOfPermitsLeaveNoStateBehindInTheClient() throws Exception {
        ZooKeeperLockClient client = client();
        String base = "distinct-" + System.nanoTime() + "-";
        // a contended round first, so that watches were set and removed
        Lease held = client().getFairLock(base + "contended").acquire(SOON);
        Future<Optional<Lease>> waiter = threads.submit(() -> client.getFairLock(base + "contended").tryAcquire(SOON));
        Await.until(SOON, "a waiter queues", () -> raw.children("/~fair", base + "contended").size() == 2);
        held.close();
        within(waiter).orElseThrow().close();
        int remembered = client.backend().rememberedNodes();
        int watches = watches(client);
        assertThat(remembered).isZero();

        List<Future<?>> workers = new ArrayList<>();
        int parallel = 8;
        for (int w = 0; w < parallel; w++) {
            int first = w;
            workers.add(threads.submit(() -> {
                for (int i = first; i < DISTINCT; i += parallel) {
                    if (i % 2 == 0) {
                        client.getFairLock(base + i).acquire(SOON).close();
                    } else {
                        client.getSemaphore(base + i, i).acquire(SOON).close();
                    }
                }
                return null;
            }));
        }
        for (Future<?> worker : workers) {
            worker.get(30, TimeUnit.MINUTES);
        }
        assertThat(client.backend().rememberedNodes()).as("owner ids with a node, after " + DISTINCT + " names").isEqualTo(remembered);
        assertThat(watches(client)).as("ZooKeeper watches of the client").isEqualTo(watches);
    }

    /**
     * Finding 10, lost leases: a lease whose node vanished (here force-unlocked by another client) kept its owner id in
     * the client's node map for the life of the client, since the engine releases nothing for a lease lost that way.
     */
    @Test
    void leasesWhoseNodesVanishedLeaveNoStateBehindInTheClient() throws Exception {
        ZooKeeperLockClient client = client();
        ZooKeeperLockClient admin = client();
        String base = "vanished-" + System.nanoTime() + "-";
        int remembered = client.backend().rememberedNodes();
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            leases.add(i % 2 == 0 ? client.getFairLock(base + i).acquire(SOON) : client.getSemaphore(base + i, 2).acquire(SOON));
        }
        for (int i = 0; i < 50; i++) {
            if (i % 2 == 0) {
                assertThat(admin.getFairLock(base + i).forceUnlock()).isTrue();
            } else {
                deletePermits(base + i);
            }
        }
        Await.until(SOON, "every holder learns that its node is gone", () -> leases.stream().noneMatch(Lease::isValid));
        leases.forEach(Lease::close);
        assertThat(client.backend().rememberedNodes()).as("owner ids with a node, after 50 leases lost").isEqualTo(remembered);
    }

    /** Deletes every permit node of a semaphore, as an operator would. */
    private static void deletePermits(String name) {
        raw.children("/~sem", name).forEach(child -> raw.delete("/~sem", name, child));
    }

    /** Returns how many watches the client's ZooKeeper handle keeps (its own bookkeeping, read by reflection). */
    private static int watches(ZooKeeperLockClient client) throws Exception {
        ZooKeeper zooKeeper = client.curator().getZookeeperClient().getZooKeeper();
        int count = 0;
        for (String getter : List.of("getDataWatches", "getExistWatches", "getChildWatches")) {
            Method method = ZooKeeper.class.getDeclaredMethod(getter);
            method.setAccessible(true);
            count += ((List<?>) method.invoke(zooKeeper)).size();
        }
        return count;
    }

    /** A client behind {@code proxy}, patient enough (10 s) to see its request sent again after a reconnect, and keeping its leases over it. */
    private ZooKeeperLockClient through(TcpProxy proxy) {
        ZooKeeperLockClient client = ZooKeeperLockClient.builder().connectString("127.0.0.1:" + proxy.port())
                .sessionTimeout(ZooKeeperClientFactory.SESSION_TIMEOUT).operationTimeout(Duration.ofSeconds(10)).waitForReconnect(true)
                .fallbackPoll(Duration.ofMinutes(5)).build();
        clients.add(client);
        return client;
    }

    /** Drops the replies from now on; once {@code ran} holds, cuts the connections so that Curator reconnects and sends the request again. */
    private static CompletableFuture<Void> loseTheReplyAndReconnect(TcpProxy proxy, BooleanSupplier ran) {
        proxy.discardReplies(true);
        return reconnectOnce(proxy, ran);
    }

    /** Once {@code ran} holds, cuts the connections (replies no longer dropped) so that Curator reconnects and sends the request again. */
    private static CompletableFuture<Void> reconnectOnce(TcpProxy proxy, BooleanSupplier ran) {
        return CompletableFuture.runAsync(() -> {
            Await.until(Duration.ofSeconds(10), "the request ran on the server", ran);
            proxy.cut();
            proxy.discardReplies(false);
            proxy.heal();
        });
    }

    /**
     * Finding 4 on ZooKeeper: the read-write force-unlock is one transaction, which Curator sends again when the
     * connection was lost before its answer. The second run finds the holders it deleted gone; it must not take that
     * for "holders changed" and end the reader granted after the first run.
     */
    @Test
    void aReadWriteForceUnlockWhoseAnswerWasLostAndThatIsSentAgainEndsNoHolderGrantedAfterIt() throws Exception {
        String name = "rw-replay-" + System.nanoTime();
        client().getReadWriteLock(name).writeLock().acquire(SOON);
        String writerNode = raw.children("/~rw", name).get(0);
        Future<Optional<Lease>> reader = threads.submit(() -> client().getReadWriteLock(name).readLock().tryAcquire(SOON));
        Await.until(SOON, "a reader queues", () -> raw.children("/~rw", name).size() == 2);
        String readerNode = raw.children("/~rw", name).get(1);
        try (TcpProxy proxy = TcpProxy.to(server.port())) {
            ZooKeeperLockClient admin = through(proxy);
            // the answers are lost from the transaction on (the listing before it is answered)
            AtomicBoolean once = new AtomicBoolean();
            admin.backend().seams().forceUnlockRead = () -> {
                if (once.compareAndSet(false, true)) {
                    proxy.discardReplies(true);
                }
            };
            CompletableFuture<Void> reconnected = reconnectOnce(proxy,
                    () -> !raw.children("/~rw", name).contains(writerNode) && reader.isDone());
            assertThat(admin.getReadWriteLock(name).forceUnlock()).as("the answer of the first run").isTrue();
            reconnected.get(10, TimeUnit.SECONDS);
        }
        Lease read = within(reader).orElseThrow();
        assertThat(raw.readWriteHolders(name)).as("the reader granted after the force-unlock still holds").containsExactly(readerNode);
        assertThat(read.isValid()).isTrue();
        read.close();
    }

    /**
     * Finding 5 on ZooKeeper: a downgrade whose create was answered after a reconnect (Curator sends creates again)
     * makes one reader node, not two: the create uses Curator's protected mode, which finds the first run's node.
     */
    @Test
    void aDowngradeWhoseAnswerWasLostAndThatIsSentAgainMakesOneReaderNode() throws Exception {
        String name = "downgrade-replay-" + System.nanoTime();
        try (TcpProxy proxy = TcpProxy.to(server.port())) {
            DistributedReadWriteLock rw = through(proxy).getReadWriteLock(name);
            rw.writeLock().lock();
            CompletableFuture<Void> reconnected = loseTheReplyAndReconnect(proxy,
                    () -> raw.children("/~rw", name).size() >= 2);
            rw.readLock().lock(); // the downgrade's create: its answer is lost, Curator sends it again after reconnecting
            reconnected.get(10, TimeUnit.SECONDS);
            assertThat(raw.children("/~rw", name)).as("the writer and one reader").hasSize(2);
            rw.writeLock().unlock();
            rw.readLock().unlock();
        }
        Await.until(SOON, "no node left after both were released", () -> raw.children("/~rw", name).isEmpty());
        assertThat(client().getReadWriteLock(name).writeLock().tryAcquire(Duration.ofSeconds(5))).as("another writer gets the lock")
                .isPresent().get().satisfies(Lease::close);
    }

    /** Makes the next call of {@code client} that creates a queue node fail right after the create, as a lost connection would. */
    private static void failOnceAfterTheCreate(ZooKeeperLockClient client) {
        AtomicBoolean once = new AtomicBoolean();
        client.backend().seams().created = () -> {
            if (once.compareAndSet(false, true)) {
                throw new IllegalStateException("the connection was lost right after the create (injected)");
            }
        };
    }

    /**
     * Finding 8, a failed join: a join (or a downgrade) that failed after its node was created - the next call of the
     * join lost its connection past Curator's retries - left the node in the queue, where nobody would ever leave it: the
     * queue behind it was stuck until the session ended. The node now goes with the failure, and the client lives on.
     */
    @Test
    void aJoinOrDowngradeThatFailsAfterItsNodeWasCreatedLeavesNoNode() throws Exception {
        for (String kind : List.of("fair", "write", "semaphore")) {
            String name = "failed-join-" + kind + "-" + System.nanoTime();
            String root = kind.equals("fair") ? "/~fair" : kind.equals("semaphore") ? "/~sem" : "/~rw";
            Function<ZooKeeperLockClient, DistributedLock> lockOf = kind.equals("fair") ? c -> c.getFairLock(name)
                    : kind.equals("write") ? c -> c.getReadWriteLock(name).writeLock() : null;
            Lease holder = lockOf == null ? client().getSemaphore(name, 1).acquire(SOON) : lockOf.apply(client()).acquire(SOON);
            List<String> held = raw.children(root, name);

            ZooKeeperLockClient failing = client();
            failOnceAfterTheCreate(failing);
            assertThatThrownBy(() -> {
                if (lockOf == null) {
                    failing.getSemaphore(name, 1).tryAcquire(SOON);
                } else {
                    lockOf.apply(failing).tryAcquire(SOON);
                }
            }).as(kind).isInstanceOf(RuntimeException.class);
            Await.until(SOON, kind + ": the failed join's node is gone", () -> raw.children(root, name).equals(held));

            Future<Optional<Lease>> next = threads.submit(() -> lockOf == null ? failing.getSemaphore(name, 1).tryAcquire(SOON)
                    : lockOf.apply(failing).tryAcquire(SOON));
            Await.until(SOON, kind + ": the next waiter queues", () -> raw.children(root, name).size() == 2);
            holder.close();
            assertThat(within(next)).as(kind + ": the next waiter, on the same client").isPresent().get().satisfies(Lease::close);
        }

        String name = "failed-downgrade-" + System.nanoTime();
        ZooKeeperLockClient failing = client();
        DistributedReadWriteLock rw = failing.getReadWriteLock(name);
        rw.writeLock().lock();
        failOnceAfterTheCreate(failing);
        assertThatThrownBy(() -> rw.readLock().lock()).isInstanceOf(RuntimeException.class);
        Await.until(SOON, "the failed downgrade's reader node is gone", () -> raw.children("/~rw", name).size() == 1);
        rw.writeLock().unlock();
        assertThat(client().getReadWriteLock(name).writeLock().tryAcquire(SOON)).as("another writer").isPresent();
    }

    /**
     * Finding 9: a semaphore waiter read the queue, then set its watch on the children: a permit released in between
     * changed nothing after the watch, and the waiter slept to its fallback poll (minutes). Each release here comes
     * exactly there, from another client.
     */
    @Test
    void aSemaphoreWaiterIsWokenByAReleaseBetweenItsReadAndItsWatch() throws Exception {
        String name = "sem-wake-" + System.nanoTime();
        ZooKeeperLockClient holders = client();
        List<Lease> held = new ArrayList<>(List.of(holders.getSemaphore(name, 2).acquire(SOON), holders.getSemaphore(name, 2).acquire(SOON)));
        for (int round = 0; round < 3; round++) {
            ZooKeeperLockClient waiting = client();
            Lease leaving = held.remove(0);
            AtomicBoolean once = new AtomicBoolean();
            waiting.backend().seams().waiting = () -> {
                if (once.compareAndSet(false, true)) {
                    int before = raw.children("/~sem", name).size();
                    leaving.close();
                    Await.until(SOON, "the released permit's node is gone", () -> raw.children("/~sem", name).size() == before - 1);
                }
            };
            Future<Optional<Lease>> waiter = threads.submit(() -> waiting.getSemaphore(name, 2).tryAcquire(Duration.ofMinutes(2)));
            assertThat(within(waiter)).as("round " + round + ": the waiter, woken by the release").isPresent();
            held.add(waiter.get().orElseThrow());
            assertThat(raw.children("/~sem", name)).hasSize(2);
        }
    }
}
