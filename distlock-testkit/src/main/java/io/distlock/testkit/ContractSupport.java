package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.distlock.BackendUnavailableException;
import io.distlock.DistributedLock;
import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.LockOptions;
import io.distlock.servers.Await;
import io.distlock.spi.EngineState;
import io.distlock.spi.LockEngine;
import io.distlock.servers.BackendControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;

/**
 * What every contract tier needs: the backend's {@link BackendHooks} (client factory, servers, raw state,
 * capabilities), fresh clients and names per test, background threads cleaned up after each test, and the state
 * validation after it (the client's maps, then the servers). The tiers are {@link LockContract} (every backend),
 * {@link LeaseLockContract} (locks that are leases, and sessions where the hooks have them) and the others that
 * {@link BackendContract} runs.
 */
public abstract class ContractSupport {
    /** A generous bound for things that must happen "soon"; only a broken implementation hits it. */
    protected static final Duration SOON = Duration.ofSeconds(20);
    /**
     * A fallback poll far longer than {@link #SOON}: a waiter with it that acquires within SOON was woken
     * by the backend's notification (or the holder's lease end), not by polling.
     */
    protected static final Duration NO_POLLING = Duration.ofMinutes(5);

    private final List<LockClient> clients = new CopyOnWriteArrayList<>();
    private final List<Future<?>> background = new CopyOnWriteArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private String testName = "test";
    private final AtomicInteger names = new AtomicInteger();
    private final List<String> usedNames = new CopyOnWriteArrayList<>();
    private final List<String> leftOnPurpose = new CopyOnWriteArrayList<>();

    /**
     * Returns the hooks of the backend under test: the one small class its module writes per deployment
     * (see {@link BackendContract}).
     */
    protected abstract BackendHooks hooks();

    /**
     * Returns whether this tier runs on the backend of {@link #hooks()}: by default when the backend has the tier's
     * {@link #kind()}. A tier that needs another capability (an inspector, several kinds) says so here.
     */
    protected boolean runsOn(BackendHooks hooks) {
        return hooks.kinds().contains(kind());
    }

    /** Returns the factory class of the backend's clients. */
    protected final Class<? extends LockClientFactory> factoryClass() {
        return hooks().factoryClass();
    }

    /** Returns the servers under test. */
    protected final TestDeployment deployment() {
        return hooks().deployment();
    }

    /** Returns whether the backend's own state (read directly, not through distlock) shows the tier's lock held. */
    protected boolean lockedInBackend(String name) {
        return hooks().heldInBackend(kind(), name);
    }

    @BeforeEach
    void rememberTestName(TestInfo info) {
        testName = info.getTestMethod().map(m -> m.getName()).orElse("test");
        assumeTrue(!BackendContract.deselected(getClass()), () -> getClass().getSimpleName() + " is not among the tiers of " + BackendContract.TIERS_PROPERTY);
        assumeTrue(runsOn(hooks()), () -> getClass().getSimpleName() + " does not run on " + hooks() + ": the backend declares no such capability");
    }

    @AfterEach
    void closeClients() {
        background.forEach(f -> f.cancel(true));
        threads.shutdownNow();
        try {
            assertClientsKeepNothingOnceIdle();
        } finally {
            clients.forEach(LockClient::close);
        }
        assertServersKeepNothingOfTheTestsNames();
    }

    /**
     * Issue 29 (state validation, server side): once every client of the test is closed and every lease it left has
     * run out, the servers keep nothing of the test's names but what the backend keeps by design (see
     * {@link BackendHooks#leftoversInBackend}). A test that leaves state on purpose, longer than {@link #SOON}, names
     * it with {@link #leavesStateBehind}.
     */
    private void assertServersKeepNothingOfTheTestsNames() {
        List<String> checked = new ArrayList<>(usedNames);
        checked.removeAll(leftOnPurpose);
        if (checked.isEmpty()) {
            return;
        }
        AtomicReference<List<String>> last = new AtomicReference<>(List.of());
        try {
            Await.until(SOON, "the servers drop what the test's locks kept", () -> {
                List<String> now = new ArrayList<>();
                for (String name : checked) {
                    now.addAll(hooks().leftoversInBackend(name));
                }
                last.set(now);
                return now.isEmpty();
            });
        } catch (AssertionError | RuntimeException e) {
            throw new AssertionError("every client of the test is closed, yet " + SOON.toSeconds() + " s later the servers still keep "
                    + last.get() + " of its names " + checked, e);
        }
    }

    /**
     * The hook of the check above sees a held lock of the tier's kind, and nothing of it once its client closed: without
     * this, a hook that never finds anything would pass every test. The tiers of a kind call it ({@link LockContract},
     * {@link SemaphoreContract}) with how they take a long lease of {@code name}.
     */
    protected final void assertTheServersKeepAHeldLockUntilItsClientCloses(String name, LockTaker acquire) throws Exception {
        LockClient client = open(ClientSettings.DEFAULTS);
        try {
            acquire.take(client);
            assertThat(hooks().leftoversInBackend(name)).as("what the servers keep of '%s' while it is held", name).isNotEmpty();
        } finally {
            client.close();
        }
        Await.until(SOON, "the servers keep nothing of '" + name + "' once its client closed", () -> hooks().leftoversInBackend(name).isEmpty());
    }

    /** Takes a lease from a client, for {@link #assertTheServersKeepAHeldLockUntilItsClientCloses}. */
    @FunctionalInterface
    protected interface LockTaker {
        /** Acquires (and keeps) a lease from {@code client}. */
        void take(LockClient client) throws Exception;
    }

    /**
     * Declares that the test leaves state of {@code name} on the servers longer than the check after it waits (a lease
     * of a killed holder that outlasts it, say): the check skips that name.
     */
    protected void leavesStateBehind(String name) {
        leftOnPurpose.add(name);
    }

    /**
     * Issue 29 (state validation, as Caffeine validates its maps after each test): a client of the test that is open and
     * holds no lease any more must drop, soon, everything it kept per name (the engine's slots and semaphore spaces,
     * session wake-ups, the backend's subscriptions, watches and queue entries). Subscriptions that linger by design
     * (about two seconds after the last waiter) are ended first, as their timers would; what remains then would stay for
     * good. A leak of exactly this kind, state kept for every name ever used, grows without bound in a long-running
     * service.
     */
    private void assertClientsKeepNothingOnceIdle() {
        for (LockClient client : clients) {
            Optional<EngineState> first = LockEngine.state(client, false);
            if (first.isEmpty() || first.get().closed() || first.get().heldLeases() > 0) {
                continue; // not an engine client, closed by the test, or still holding: its state is the test's business
            }
            AtomicReference<EngineState> last = new AtomicReference<>(first.get());
            try {
                Await.until(SOON, "the idle client " + client + " drops its per-name state", () -> {
                    EngineState now = LockEngine.state(client, true).orElseThrow();
                    last.set(now);
                    return now.closed() || now.heldLeases() > 0 || now.isIdle();
                });
            } catch (AssertionError | RuntimeException e) {
                throw new AssertionError("the client " + client + " holds no lease but still keeps per-name state after " + SOON.toSeconds()
                        + " s: " + last.get(), e);
            }
        }
    }

    /** Returns where the servers are, in the factory's terms (a URI or connect string). */
    protected String target() {
        return deployment().target();
    }

    /** Returns fault injection on the servers. */
    protected BackendControl backend() {
        return deployment().control();
    }

    /** Returns a new client to the test server with {@link ClientSettings#DEFAULTS}, closed after the test. */
    protected LockClient newClient() {
        return newClient(ClientSettings.DEFAULTS);
    }

    /** Returns a new client to the test server with these settings, closed after the test. */
    protected LockClient newClient(ClientSettings settings) {
        LockClient client = open(settings);
        clients.add(client);
        return client;
    }

    /** Closes {@code client} after the test, like the clients of {@link #newClient()}; returns it. */
    protected <C extends LockClient> C closeAfterTest(C client) {
        clients.add(client);
        return client;
    }

    /** Returns a new client whose waiters poll only every {@link #NO_POLLING}, closed after the test. */
    protected LockClient newClientWithoutPolling() {
        return newClient(ClientSettings.DEFAULTS.withFallbackPoll(NO_POLLING));
    }

    /**
     * Returns whether the backend tells a force-unlocked holder that it was force-unlocked (reason
     * FORCE_UNLOCKED) rather than only that its lock is gone (SERVER_LOST_LOCK). ZooKeeper cannot tell a
     * deleted node from an expired one and overrides this.
     */
    protected boolean tellsForceUnlocks() {
        return hooks().tellsForceUnlocks();
    }

    /** Returns the kind of lock the tier runs against: the plain lock unless the test class says otherwise. */
    protected LockKind kind() {
        return LockKind.LOCK;
    }

    /** Returns the lock of the tier's {@link #kind()} with this name from {@code client}. */
    protected DistributedLock lockOf(LockClient client, String name) {
        return ExclusiveLocks.of(kind(), client, name);
    }

    /** Returns the lock of the tier's {@link #kind()} with this name and options from {@code client}. */
    protected DistributedLock lockOf(LockClient client, String name, LockOptions options) {
        return ExclusiveLocks.of(kind(), client, name, options);
    }

    /** Returns a lock name unique to this test run. */
    protected String uniqueName() {
        String name = testName + "-" + System.nanoTime() + "-" + names.incrementAndGet();
        usedNames.add(name);
        return name;
    }

    /**
     * Returns a lease longer than any wait in these tests, within what the backend allows: session-bound
     * backends (ZooKeeper) cap leases at their session timeout and override this.
     */
    protected Duration longLease() {
        return hooks().longLease();
    }

    /**
     * Returns the shortest lease the tests use (others are multiples of it): short, so that expiry tests
     * finish quickly, but one the backend accepts (RedLock needs ten node timeouts).
     */
    protected Duration shortLease() {
        return hooks().shortLease();
    }

    /** Returns options with this lease time and renewal setting. */
    protected static LockOptions lease(Duration leaseTime, boolean autoRenew) {
        return LockOptions.builder().leaseTime(leaseTime).autoRenew(autoRenew).build();
    }

    /** Asserts, from the backend's own state, that the lock is held by someone. */
    protected void assertLocked(String name) {
        assertThat(lockedInBackend(name)).as("backend state of lock '%s' shows it held", name).isTrue();
    }

    /** Asserts, from the backend's own state, that the lock is free. */
    protected void assertUnlocked(String name) {
        assertThat(hooks().freeInBackend(kind(), name)).as("backend state of lock '%s' shows it free", name).isTrue();
    }

    /** Runs {@code task} on a test thread; cancelled (interrupted) after the test. */
    protected <T> Future<T> inBackground(java.util.concurrent.Callable<T> task) {
        Future<T> future = threads.submit(task);
        background.add(future);
        return future;
    }

    /** Starts {@code lock.tryAcquire(wait)} on a test thread and returns once it waits in the backend (see {@link #awaitWaitingInBackend}). */
    protected Future<Optional<Lease>> queuedWaiter(DistributedLock lock, Duration wait) {
        AtomicReference<Thread> waiterThread = new AtomicReference<>();
        Future<Optional<Lease>> waiter = inBackground(() -> {
            waiterThread.set(Thread.currentThread());
            return lock.tryAcquire(wait);
        });
        awaitWaitingInBackend(waiterThread);
        return waiter;
    }

    /**
     * Waits until the thread in {@code waiter} sleeps in the engine's wait for a turn or a release, that is,
     * after its request reached the backend and was answered "not yet" (a thread merely parked on a backend
     * round trip is not there yet). Read from the thread's stack: the engine's waiting place is
     * {@code ReleaseSignal.awaitChange}.
     */
    protected static void awaitWaitingInBackend(AtomicReference<Thread> waiter) {
        Await.until(SOON, "the waiter waits for its turn", () -> {
            Thread thread = waiter.get();
            if (thread == null) {
                return false;
            }
            for (StackTraceElement frame : thread.getStackTrace()) {
                if (frame.getClassName().endsWith(".ReleaseSignal") && frame.getMethodName().equals("awaitChange")) {
                    return true;
                }
            }
            return false;
        });
    }

    /**
     * Returns what a waiter started with a wait of {@link #SOON} got, waiting for it at most five seconds less than that:
     * a waiter that only gets the lock by its last check at the end of its own wait (it was never woken) fails this.
     */
    protected static Optional<Lease> wokenWithin(Future<Optional<Lease>> waiter) throws Exception {
        try {
            return waiter.get(SOON.toSeconds() - 5, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("the waiter was not woken: it still waited " + (SOON.toSeconds() - 5) + " s later, close to the end "
                    + "of its own " + SOON.toSeconds() + " s wait", e);
        }
    }

    /**
     * Returns how many requests the backend's servers have answered so far, read from their own counters (Redis:
     * {@code total_commands_processed}); empty where the test class has no such counter. Lets a test show that a waiter
     * makes no calls while it waits.
     */
    protected java.util.OptionalLong serverCalls() {
        return hooks().serverCalls();
    }

    /** Returns {@code thread}'s stack as text, for a failure message that must say where a thread waited. */
    protected static String stackOf(Thread thread) {
        StringBuilder text = new StringBuilder(thread.getName()).append(' ').append(thread.getState());
        for (StackTraceElement frame : thread.getStackTrace()) {
            text.append("\n\tat ").append(frame);
        }
        return text.toString();
    }

    /** Waits until the thread in {@code waiter} is parked (waiting, e.g. for a backend's answer). */
    protected static void awaitParked(AtomicReference<Thread> waiter) {
        Await.until(SOON, "the waiter is parked", () -> {
            Thread thread = waiter.get();
            if (thread == null) {
                return false;
            }
            Thread.State state = thread.getState();
            return state == Thread.State.WAITING || state == Thread.State.TIMED_WAITING;
        });
    }

    /** Returns a new client of the backend's factory class; the caller closes it. */
    private LockClient open(ClientSettings settings) {
        LockClientFactory factory;
        try {
            factory = factoryClass().getDeclaredConstructor().newInstance();
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot instantiate " + factoryClass(), e);
        }
        return factory.create(target(), settings);
    }
}
