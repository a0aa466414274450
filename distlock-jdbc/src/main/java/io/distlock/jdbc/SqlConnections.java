package io.distlock.jdbc;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTimeoutException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's own connections and the threads that use them: every operation is one task on one of
 * {@code size} threads, on an autocommit connection no caller's transaction can see or roll back. The
 * client never has more connections open than it was given: one per worker thread (each uses one at a
 * time, and new ones are opened only when none is idle), and on PostgreSQL one of them listens instead.
 */
final class SqlConnections implements AutoCloseable {
    /*
     * JDBC blocks, the SPI does not: each operation runs on a worker thread and completes a future. The
     * future fails with BackendUnavailableException when the operation timeout passes, but the statement
     * may still be on its way to the server (a frozen server runs it when it thaws). So the worker keeps
     * waiting for the real answer, and an operation can say what to do with an answer that comes after
     * the caller gave up (acquire releases a late grant): that follow-up runs after the statement has
     * committed, so it cannot overtake it, which a release sent on another connection could.
     *
     * A connection whose statement failed with a connection-class error is closed; a pooled (older)
     * connection that fails so is retried once on a new one, since a server restart or a killed session
     * leaves every pooled connection dead. A statement refused because the server or the session is
     * read-only counts as such an error: the connection may be bound to a standby, or may have taken its
     * read-only default (PostgreSQL's default_transaction_read_only, set per database or role, applies
     * to sessions as they start) and kept it after the server became writable again; kept, it would
     * refuse every write for the rest of its life. Every operation is safe to run twice: each compares the owner
     * id, and acquire by the same owner id keeps its fence.
     *
     * Every connection runs at READ COMMITTED, set when it is opened, whatever the database's default
     * (default_transaction_isolation, MariaDB's REPEATABLE READ) or the pool's setting: an acquire that
     * meets another acquire of the same free row waits for its row lock and must then re-read the row
     * and find it held (busy). Under REPEATABLE READ or SERIALIZABLE, PostgreSQL and H2 refuse that
     * statement instead (serialization failure, "deadlock detected"), so waiters would fail where they
     * should wait. Each statement is its own transaction, so READ COMMITTED is all the statements need.
     *
     * A network timeout bounds how long a worker waits on a silent connection (a network partition
     * would otherwise hold it until TCP gives up): 10 operation timeouts, at least 30 s.
     */
    private static final Logger log = LoggerFactory.getLogger(SqlConnections.class);

    private final ConnectionSource source;
    private final Duration timeout;
    private final int networkTimeoutMillis;
    private final ScheduledExecutorService timer;
    private final ThreadPoolExecutor workers;
    private final ConcurrentLinkedDeque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The client's combiners: a turn's end drains each. */
    private final List<Combiner<?, ?>> combiners = new CopyOnWriteArrayList<>();
    /** The turn of the drain that runs its statement (the first of a combined call) of any combiner, or null. */
    private final AtomicReference<@Nullable Turn> turn = new AtomicReference<>();

    /** Makes a pool of {@code size} worker threads, each with at most one connection at a time. */
    SqlConnections(ConnectionSource source, int size, Duration timeout, ScheduledExecutorService timer, String threadPrefix) {
        this.source = source;
        this.timeout = timeout;
        this.networkTimeoutMillis = (int) Math.min(Integer.MAX_VALUE, Math.max(30_000, timeout.toMillis() * 10));
        this.timer = timer;
        AtomicInteger threads = new AtomicInteger();
        this.workers = new ThreadPoolExecutor(size, size, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), task -> {
            Thread thread = new Thread(task, threadPrefix + "-sql-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        workers.allowCoreThreadTimeOut(true);
    }

    /**
     * Takes one connection away from the statements, for one that {@link #open()} opens and a caller keeps
     * (the LISTEN connection): from now on at most {@code size - 1} connections run statements.
     *
     * @throws IllegalStateException if the pool has a single connection
     */
    void reserveOne() {
        int size = workers.getMaximumPoolSize();
        if (size < 2) {
            throw new IllegalStateException("a pool of one connection has none to spare");
        }
        workers.setCorePoolSize(size - 1); // the core size first: it may not exceed the maximum
        workers.setMaximumPoolSize(size - 1);
        // the pool has run only the setup so far, on one connection: no more than size - 1 are open
    }

    /** Work on one connection. */
    @FunctionalInterface
    interface Work<T> {
        T run(Connection connection) throws SQLException;
    }

    /** A point right after a call's work ran on the server, before its answer is used (see {@link #answered}). */
    @FunctionalInterface
    interface AnswerSeam {
        void answered(String operation, Object answer, Connection connection) throws SQLException;
    }

    /**
     * Runs after a call's work ran on the server and before its answer is used: where a test loses the answer (throws a
     * connection error there, as a connection that dies between the server's commit and its reply would), so that the
     * work runs again on a new connection, as it does then. A no-op outside tests.
     */
    static volatile AnswerSeam answered = (operation, answer, connection) -> { };

    /** What to do with an answer that came after the caller gave up. */
    @FunctionalInterface
    interface LateAnswer<T> {
        void handle(Connection connection, T answer) throws SQLException;
    }

    /** Runs {@code work} on a worker; the future fails with BackendUnavailableException after the operation timeout. */
    <T> CompletableFuture<T> submit(String operation, @Nullable String lockName, Work<T> work) {
        return submit(operation, lockName, work, null);
    }

    /**
     * Runs {@code work} on a worker, and {@code late} with its answer if that comes after the future
     * failed by timeout. Work the caller gave up on before it started does not run at all.
     */
    <T> CompletableFuture<T> submit(String operation, @Nullable String lockName, Work<T> work, @Nullable LateAnswer<T> late) {
        return submit(operation, lockName, work, late, timeout);
    }

    /** Like {@link #submit(String, String, Work, LateAnswer)}, with its own timeout instead of the operation timeout. */
    <T> CompletableFuture<T> submit(String operation, @Nullable String lockName, Work<T> work, @Nullable LateAnswer<T> late, Duration timeout) {
        CompletableFuture<T> future = new CompletableFuture<>();
        Claim claim = new Claim();
        ScheduledFuture<?> deadline = deadline(operation, lockName, timeout, claim, future);
        try {
            workers.execute(() -> {
                if (claim.gaveUp()) {
                    return;
                }
                try {
                    T answer = withConnection(connection -> {
                        T result = work.run(connection);
                        if (result != null) {
                            answered.answered(operation, result, connection);
                        }
                        if (!claim.toAnswer() && late != null) {
                            late.handle(connection, result);
                        }
                        return result;
                    });
                    deadline.cancel(false);
                    future.complete(answer);
                } catch (SQLException e) {
                    deadline.cancel(false);
                    future.completeExceptionally(translate(e, operation, lockName));
                } catch (RuntimeException e) {
                    deadline.cancel(false);
                    future.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            deadline.cancel(false);
            future.completeExceptionally(new IllegalStateException("the lock client is closed", e));
        }
        return future;
    }

    /** Fails {@code future} by timeout after {@code timeout}, unless the worker has claimed it with an answer first. */
    private <T> ScheduledFuture<?> deadline(String operation, @Nullable String lockName, Duration timeout, Claim claim, CompletableFuture<T> future) {
        return timer.schedule(() -> {
            if (claim.toFail()) {
                future.completeExceptionally(new BackendUnavailableException(what(operation, lockName) + " got no answer from "
                        + source.describe() + " within " + timeout, null));
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /**
     * Who answers a call's caller, decided once: the worker with the call's answer, or the deadline (or the client's
     * close) with a failure. A worker that finds the caller failed already gives its answer to the call's late handling
     * (an acquire releases its grant). Decided by a flag that the deadline set before it failed the future, both could
     * happen: the worker saw the flag and released the grant, then completed the future, still open, with that grant,
     * and the caller held a lock that was free on the server.
     */
    static final class Claim {
        private static final int OPEN = 0;
        private static final int ANSWERED = 1;
        private static final int FAILED = 2;
        private final AtomicInteger by = new AtomicInteger(OPEN);

        /** The worker's try, with the call's answer: true if the caller gets it (also when a call run again had won before). */
        boolean toAnswer() {
            return by.compareAndSet(OPEN, ANSWERED) || by.get() == ANSWERED;
        }

        /** The deadline's or the close's try: true if the caller is to be failed. */
        boolean toFail() {
            return by.compareAndSet(OPEN, FAILED);
        }

        /** Whether the caller was failed (the call is not to run if it has not started). */
        boolean gaveUp() {
            return by.get() == FAILED;
        }
    }

    /** The most requests one combined call takes. */
    static final int MAX_COMBINED = 32;

    /**
     * Work on several requests of one kind at once, on one connection: one answer per request, in their order. It calls
     * {@code statementDone} once the combined statement has run, before any follow-up statement of single requests (see
     * {@link Combiner}).
     */
    @FunctionalInterface
    interface CombinedWork<R, T> {
        List<T> run(Connection connection, List<R> requests, Runnable statementDone) throws SQLException;
    }

    /**
     * How long a combined statement runs before a drain may start beside it: a statement held up (a row
     * another session keeps locked, a slow server) holds up the requests queued behind it no longer than this.
     */
    static final Duration HELD_UP = Duration.ofMillis(50);

    /** {@link #HELD_UP}, but for tests that need longer to queue requests behind a statement before it counts as held up. */
    static volatile Duration heldUp = HELD_UP;

    /** Work on one request of a {@link Combiner}: one that found no other queued, or one of a combined call that failed. */
    @FunctionalInterface
    interface SingleWork<R, T> {
        T run(Connection connection, R request) throws SQLException;
    }

    /** What to do with the answer to a request whose caller gave up while its combined call ran. */
    @FunctionalInterface
    interface LateRequestAnswer<R, T> {
        void handle(Connection connection, R request, T answer) throws SQLException;
    }

    /**
     * Requests of one kind (acquires, releases) that a worker may run together: when a worker takes one, it takes every
     * other queued request of the kind too (up to {@value #MAX_COMBINED}, at most one per lock key), and runs them as one
     * call: one round trip and one transaction on the server instead of one each, and one thread handoff for all. The
     * requests are sorted by key, so that two combined calls lock their rows in one order (the database's plan permitting;
     * a deadlock it detects rolls one call back, and it runs again, see {@link #withConnection}). A combined call must be
     * safe to run again (a lost answer runs it again on a new connection) and must not let one request's failure pass for
     * another's: a combined call that fails runs each of its requests alone, so each fails or succeeds on its own.
     *
     * <p>One combined statement runs at a time, of whichever kind (one {@link Turn} for the client's combiners): the
     * requests that queue while it runs wait for it and go in the next one of their kind. Statements running side by
     * side on one table (rows on a few pages) cost the database far more CPU per request than one statement of all of
     * them: on PostgreSQL with 16 threads on 16 names, 60 us of machine CPU per lock and unlock with one statement
     * worker against 160-180 us with three (docs/benchmarks.md). A statement that has run for {@link #HELD_UP} no
     * longer holds the next one back.
     */
    final class Combiner<R, T> {
        private final String operation;
        private final CombinedWork<R, T> combined;
        private final SingleWork<R, T> single;
        private final @Nullable LateRequestAnswer<R, T> late;
        private final ConcurrentLinkedDeque<Pending<R, T>> queued = new ConcurrentLinkedDeque<>();

        private Combiner(String operation, CombinedWork<R, T> combined, SingleWork<R, T> single, @Nullable LateRequestAnswer<R, T> late) {
            this.operation = operation;
            this.combined = combined;
            this.single = single;
            this.late = late;
            combiners.add(this);
        }

        /**
         * Queues {@code request} on lock {@code lockName} (row {@code key}); the future fails with
         * BackendUnavailableException after the operation timeout, as {@link #submit} does.
         */
        CompletableFuture<T> submit(@Nullable String lockName, byte[] key, R request) {
            CompletableFuture<T> future = new CompletableFuture<>();
            Claim claim = new Claim();
            ScheduledFuture<?> deadline = deadline(operation, lockName, timeout, claim, future);
            Pending<R, T> pending = new Pending<>(lockName, key, request, future, claim, deadline);
            queued.add(pending);
            try {
                workers.execute(this::drain);
            } catch (RejectedExecutionException e) {
                failQueued(e); // this one, and any a drain puts back
            }
            return pending.future;
        }

        /** Fails every queued request: the client is closed, and no drain runs after this. */
        private void failQueued(RejectedExecutionException closed) {
            Pending<R, T> pending;
            while ((pending = queued.poll()) != null) {
                pending.deadline.cancel(false);
                if (pending.claim.toFail()) {
                    pending.future.completeExceptionally(new IllegalStateException("the lock client is closed", closed));
                }
            }
        }

        /**
         * Takes the queued requests (one per key) and runs them. Every request queued is followed by a drain (each submit
         * runs one, and a drain that puts requests back runs more), and a drain takes at least one request if there is one.
         */
        private void drain() {
            Turn mine = new Turn(System.nanoTime());
            Turn current = turn.compareAndExchange(null, mine);
            Runnable statementDone;
            if (current == null) {
                statementDone = mine;
            } else if (current.heldUpAt(System.nanoTime())) {
                statementDone = () -> { }; // beside a statement held up: not the one that drains again
            } else {
                current.watch(); // the running drain drains again when its statement is done, or one starts beside it when held up
                return;
            }
            try {
                drainNow(statementDone);
            } finally {
                statementDone.run();
            }
        }

        /** Gives the queued requests a drain, if there are any. */
        private void drainIfQueued() {
            if (!queued.isEmpty()) {
                scheduleDrain();
            }
        }

        private void scheduleDrain() {
            try {
                workers.execute(this::drain);
            } catch (RejectedExecutionException closed) {
                failQueued(closed);
            }
        }

        private void drainNow(Runnable statementDone) {
            List<Pending<R, T>> batch = new ArrayList<>();
            List<Pending<R, T>> later = new ArrayList<>();
            Set<ByteBuffer> keys = new HashSet<>();
            Pending<R, T> next;
            while (batch.size() < MAX_COMBINED && (next = queued.poll()) != null) {
                if (next.claim.gaveUp()) {
                    continue; // its caller gave up before it ran: it does not run at all
                }
                if (keys.add(ByteBuffer.wrap(next.key))) {
                    batch.add(next);
                } else {
                    later.add(next); // a second request on one row: not in one call with the first (its answer would be the row's, not its own)
                }
            }
            // back at the head, in their order: they came before what is queued since. A drain that started meanwhile may
            // have found the queue empty, so each needs a drain after it; one per worker is enough (a drain takes every
            // key it can), and more would only scan the queue again: many requests on one name (c16) made one each
            for (int i = later.size() - 1; i >= 0; i--) {
                queued.offerFirst(later.get(i));
            }
            for (int i = 0; i < Math.min(later.size(), workers.getMaximumPoolSize()); i++) {
                try {
                    workers.execute(this::drain);
                } catch (RejectedExecutionException closed) {
                    failQueued(closed); // closing: the drains queued before still run, no later one does
                    break;
                }
            }
            if (batch.isEmpty()) {
                return;
            }
            if (batch.size() == 1) {
                runAlone(batch.get(0));
                return;
            }
            batch.sort((a, b) -> Arrays.compareUnsigned(a.key, b.key));
            List<R> requests = new ArrayList<>(batch.size());
            for (Pending<R, T> pending : batch) {
                requests.add(pending.request);
            }
            List<T> answers;
            try {
                answers = withConnection(connection -> {
                    List<T> result = combined.run(connection, requests, statementDone);
                    answered.answered(operation + " (combined)", result, connection);
                    claimOrHandleLate(connection, batch, result);
                    return result;
                });
            } catch (SQLException | RuntimeException e) {
                log.debug("a combined {} of {} requests on {} failed; running each alone", operation, batch.size(), source.describe(), e);
                statementDone.run();
                runEachAlone(batch);
                return;
            }
            for (int i = 0; i < batch.size(); i++) {
                batch.get(i).deadline.cancel(false);
                batch.get(i).future.complete(answers.get(i)); // a request whose caller was failed first stays failed
            }
        }

        /** Claims each request's answer for its caller, or gives it to the late handling where the caller was failed first. */
        private void claimOrHandleLate(Connection connection, List<Pending<R, T>> batch, List<T> answers) throws SQLException {
            for (int i = 0; i < batch.size(); i++) {
                Pending<R, T> pending = batch.get(i);
                if (!pending.claim.toAnswer() && late != null) { // handled again if the call runs again: each late handling is safe twice
                    late.handle(connection, pending.request, answers.get(i));
                }
            }
        }

        /**
         * Runs the requests of a failed combined call one by one: it may have been carried out (an answer lost), so a
         * request whose caller gave up runs too, for its late handling. Once the server is unreachable the rest fail with
         * that, unrun: a silent server would hold this worker for a network timeout per request.
         */
        private void runEachAlone(List<Pending<R, T>> batch) {
            @Nullable Throwable unreachable = null;
            for (Pending<R, T> pending : batch) {
                if (unreachable == null) {
                    Throwable failure = runAlone(pending);
                    unreachable = failure instanceof BackendUnavailableException ? failure : null;
                } else {
                    pending.deadline.cancel(false);
                    pending.future.completeExceptionally(new BackendUnavailableException(what(operation, pending.lockName)
                            + " was not run: " + unreachable.getMessage(), unreachable));
                }
            }
        }

        /** Runs one request; returns its failure, or null. */
        private @Nullable Throwable runAlone(Pending<R, T> pending) {
            try {
                T answer = withConnection(connection -> {
                    T result = single.run(connection, pending.request);
                    if (result != null) {
                        answered.answered(operation, result, connection);
                    }
                    if (!pending.claim.toAnswer() && late != null) {
                        late.handle(connection, pending.request, result);
                    }
                    return result;
                });
                pending.deadline.cancel(false);
                pending.future.complete(answer);
                return null;
            } catch (SQLException e) {
                RuntimeException failure = translate(e, operation, pending.lockName);
                pending.deadline.cancel(false);
                pending.future.completeExceptionally(failure);
                return failure;
            } catch (RuntimeException e) {
                pending.deadline.cancel(false);
                pending.future.completeExceptionally(e);
                return e;
            }
        }
    }

    /**
     * The turn of the drain that runs its statement, one for every {@link Combiner} of the client. Its end, once, lets
     * the next drain run, and gives every queue with requests a drain: a drain that found the turn taken returned after
     * the request that ran it was queued, so that request is in its queue when the turn ends, or a drain has taken it.
     * The first drain that found the turn taken also has every queue drained {@link #HELD_UP} after the turn started, in
     * case the statement is held up: requests queued early in a turn would otherwise wait for the whole of it.
     */
    private final class Turn implements Runnable {
        private final long since;
        private final long heldUpNanos = heldUp.toNanos();
        private final AtomicBoolean done = new AtomicBoolean();
        private final AtomicBoolean watched = new AtomicBoolean();

        Turn(long since) {
            this.since = since;
        }

        boolean heldUpAt(long now) {
            return now - since >= heldUpNanos;
        }

        void watch() {
            if (watched.compareAndSet(false, true)) {
                try {
                    timer.schedule(SqlConnections.this::drainEveryQueue, Math.max(0, since + heldUpNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                } catch (RejectedExecutionException closed) {
                    // the timer is shut down (the client is closing): the turn's end, or each request's deadline, still ends what is queued
                }
            }
        }

        @Override
        public void run() {
            if (!done.compareAndSet(false, true)) {
                return;
            }
            turn.compareAndSet(this, null);
            drainEveryQueue();
        }
    }

    private void drainEveryQueue() {
        for (Combiner<?, ?> combiner : combiners) {
            combiner.drainIfQueued();
        }
    }

    /** One queued request of a {@link Combiner}. */
    private static final class Pending<R, T> {
        final @Nullable String lockName;
        final byte[] key;
        final R request;
        final CompletableFuture<T> future;
        final Claim claim;
        final ScheduledFuture<?> deadline;

        Pending(@Nullable String lockName, byte[] key, R request, CompletableFuture<T> future, Claim claim, ScheduledFuture<?> deadline) {
            this.lockName = lockName;
            this.key = key;
            this.request = request;
            this.future = future;
            this.claim = claim;
            this.deadline = deadline;
        }
    }

    /** Returns a {@link Combiner} of requests of one kind. */
    <R, T> Combiner<R, T> combiner(String operation, CombinedWork<R, T> combined, SingleWork<R, T> single, @Nullable LateRequestAnswer<R, T> late) {
        return new Combiner<>(operation, combined, single, late);
    }

    /**
     * Runs {@code work} on a pooled connection on the calling thread, retrying once on a new connection if
     * the pooled one is dead, and running it again (up to {@value #DEADLOCK_ATTEMPTS} times in all) when the database
     * chose it as a deadlock or serialization victim (SQLState class 40: the statement or transaction was rolled back
     * whole; MariaDB/MySQL do this to a release's DELETE or a join's INSERT meeting each other's gap locks). Every call
     * is made to be run again: the lost-answer path above runs it again too. Only worker threads call it: that bounds
     * the connections to the workers.
     */
    private <T> T withConnection(Work<T> work) throws SQLException {
        for (int attempt = 1; ; attempt++) {
            try {
                return onePass(work);
            } catch (SQLException e) {
                if (attempt >= DEADLOCK_ATTEMPTS || !rolledBackByTheDatabase(e)) {
                    throw e;
                }
                log.debug("{} rolled a call back as a deadlock victim (attempt {}); running it again", source.describe(), attempt, e);
            }
        }
    }

    /** How many times a call the database rolled back as a deadlock victim is run in all. */
    static final int DEADLOCK_ATTEMPTS = 5;

    /** Returns whether the database rolled the statement or transaction back itself: a deadlock or serialization failure. */
    static boolean rolledBackByTheDatabase(SQLException e) {
        String state = e.getSQLState();
        return state != null && state.startsWith("40");
    }

    private <T> T onePass(Work<T> work) throws SQLException {
        Connection pooled = idle.pollFirst();
        if (pooled != null) {
            try {
                return runAndReturn(pooled, work);
            } catch (SQLException e) {
                if (!isConnectionError(e, pooled)) {
                    throw e;
                }
                log.debug("pooled connection to {} failed, retrying on a new one", source.describe(), e);
            }
        }
        return runAndReturn(open(), work);
    }

    private <T> T runAndReturn(Connection connection, Work<T> work) throws SQLException {
        try {
            T result = work.run(connection);
            giveBack(connection);
            return result;
        } catch (SQLException | RuntimeException e) {
            if (e instanceof SQLException sql && !isConnectionError(sql, connection)) {
                giveBack(connection);
            } else {
                closeQuietly(connection);
            }
            throw e;
        }
    }

    private void giveBack(Connection connection) {
        idle.offerFirst(connection);
        if (closed.get() && idle.remove(connection)) {
            closeQuietly(connection);
        }
    }

    /** Opens a new autocommit READ COMMITTED connection with the network timeout set. */
    Connection open() throws SQLException {
        Connection connection = source.open();
        try {
            connection.setAutoCommit(true);
            // whatever the database or the pool defaults to: see the class notes
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try {
                connection.setNetworkTimeout(Runnable::run, networkTimeoutMillis);
            } catch (SQLException | UnsupportedOperationException e) {
                log.debug("{} has no network timeout", source.describe(), e); // H2
            }
            return connection;
        } catch (SQLException | RuntimeException e) {
            closeQuietly(connection);
            throw e;
        }
    }

    /**
     * Returns whether the error means the connection is gone, in an unknown state, or bound to a read-only
     * server or session, rather than that the statement was refused.
     */
    static boolean isConnectionError(SQLException e, Connection connection) {
        if (isConnectionClass(e) || isReadOnly(e)) {
            return true;
        }
        try {
            return connection.isClosed();
        } catch (SQLException closed) {
            return true;
        }
    }

    /** Returns whether the exception's type or SQLState is one of a lost, refused or killed connection. */
    private static boolean isConnectionClass(SQLException e) {
        String state = state(e);
        return e instanceof SQLTransientConnectionException || e instanceof SQLNonTransientConnectionException || e instanceof SQLRecoverableException
                || e instanceof SQLTimeoutException || state.startsWith("08") || state.startsWith("57P") || state.equals("70100");
    }

    /**
     * Returns whether the server refused a write because it, or the session's default, is read-only:
     * SQLState 25006 (PostgreSQL: a standby, or default_transaction_read_only), MySQL/MariaDB's read_only
     * (1290 naming it, 1792, 1836), H2's read-only database (90097).
     */
    static boolean isReadOnly(SQLException e) {
        int code = e.getErrorCode();
        String message = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        return state(e).equals("25006") || code == 1792 || code == 1836 || code == 90097
                || (code == 1290 && (message.contains("read-only") || message.contains("read_only")));
    }

    private static String state(SQLException e) {
        return e.getSQLState() == null ? "" : e.getSQLState();
    }

    /** Returns the exception for a failed statement: BackendUnavailableException for a connection problem, else LockException. */
    RuntimeException translate(SQLException e, String operation, @Nullable String lockName) {
        String what = what(operation, lockName) + " on " + source.describe() + ": " + e.getMessage()
                + " (SQLState " + e.getSQLState() + ", error " + e.getErrorCode() + ")";
        if (isReadOnly(e)) {
            return new BackendUnavailableException(what + ": the database is read-only (a standby after a failover, or read-only mode"
                    + " switched on); locks need a writable primary, and the client uses new connections once it is writable again", e);
        }
        if (isUnreachable(e)) {
            return new BackendUnavailableException(what, e);
        }
        return new LockException(what, e);
    }

    private static String what(String operation, @Nullable String lockName) {
        return lockName == null ? operation : operation + " of lock '" + lockName + "'";
    }

    /** Returns whether a failure to open or use a connection means the server is unreachable (not: refused us). */
    static boolean isUnreachable(SQLException e) {
        String state = state(e);
        if (state.startsWith("28") || state.startsWith("3D") || state.startsWith("42")) {
            return false; // authentication, unknown database, syntax or permission: retrying will not help
        }
        return isConnectionClass(e) || state.startsWith("HY") || state.isEmpty();
    }

    /** Returns where the connections go, for messages. */
    String describe() {
        return source.describe();
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            workers.shutdown();
            try {
                workers.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            workers.shutdownNow();
            Connection connection;
            while ((connection = idle.pollFirst()) != null) {
                closeQuietly(connection);
            }
        }
    }

    static void closeQuietly(@Nullable Connection connection) {
        if (connection == null) {
            return;
        }
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("closing a connection failed", e);
        }
    }
}
