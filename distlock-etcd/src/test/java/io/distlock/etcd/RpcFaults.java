package io.distlock.etcd;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.ForwardingClientCallListener.SimpleForwardingClientCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * Network faults on chosen etcd RPCs of one jetcd client, installed as a gRPC interceptor on a client the
 * test builds itself (and hands to {@link EtcdLockClient.Builder#client}). A {@link io.distlock.servers.TcpProxy}
 * holds a whole connection; this picks out one kind of call on it: a call whose answers never come back
 * (the server got the request; the stream just stops answering), or a request that never leaves (the call
 * hangs without reaching the server). Nothing is faked: every answer that does arrive is the real server's.
 */
final class RpcFaults implements ClientInterceptor {
    /** The lease keep-alive stream, one per {@code keepAliveOnce}. */
    static final String KEEP_ALIVE = "etcdserverpb.Lease/LeaseKeepAlive";
    /** The lease revoke call. */
    static final String REVOKE = "etcdserverpb.Lease/LeaseRevoke";
    /** Transactions (every compare-and-write of distlock). */
    static final String TXN = "etcdserverpb.KV/Txn";
    /** A watch: jetcd opens one stream per watcher. */
    static final String WATCH = "etcdserverpb.Watch/Watch";
    /** A delete by name alone (no compare). */
    static final String DELETE_RANGE = "etcdserverpb.KV/DeleteRange";

    private final Set<String> silenced = ConcurrentHashMap.newKeySet();
    private final Set<String> dropped = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> silenceNext = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> loseNext = new ConcurrentHashMap<>();
    private final Map<String, Status> loseNextAs = new ConcurrentHashMap<>();
    private final Map<String, Held> holdNext = new ConcurrentHashMap<>();
    private final Map<String, Runnable> beforeNext = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> started = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> answered = new ConcurrentHashMap<>();

    /** Calls of {@code method} started from now on get no answer, ever (the requests still reach the server). */
    void silence(String method, boolean on) {
        if (on) {
            silenced.add(method);
        } else {
            silenced.remove(method);
        }
    }

    /** The next call of {@code method} gets no answer, ever; later calls are answered as usual. */
    void silenceNextCall(String method) {
        silenceNext.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * The next call of {@code method} reaches the server and is carried out, but its answer is lost: the client sees
     * UNAVAILABLE instead (a connection that broke after the server applied the request). Later calls are answered.
     */
    void loseNextAnswer(String method) {
        loseNext.computeIfAbsent(method, m -> new AtomicInteger()).incrementAndGet();
    }

    /**
     * As {@link #loseNextAnswer}, but the client sees {@code status} instead: an error that is not retried (the
     * request may have been carried out all the same).
     */
    void loseNextAnswer(String method, Status status) {
        loseNextAs.put(method, status);
        loseNextAnswer(method);
    }

    /**
     * Holds back the call of any of {@code methods} that starts after {@code skipped} others of them have started: it
     * reaches the server only when {@link Held#release} is called (a request delayed in the network, which the client
     * may have given up on by then). Calls after it are not held.
     */
    Held holdCall(int skipped, String... methods) {
        return hold(new Held(skipped, null), methods);
    }

    /** Holds the next matching call of {@code methods} by {@code held} (see {@link #holdCall}). */
    private Held hold(Held held, String... methods) {
        for (String method : methods) {
            holdNext.put(method, held);
        }
        return held;
    }

    /**
     * As {@link #holdCall}, but the client is told at once that the call failed with {@code shown} (a connection that
     * broke while the request was still in it), and the server's answer, when the released request gets one, goes
     * nowhere. A client that retries sends its next try while this one is still on its way.
     */
    Held holdCallButFailItNow(int skipped, Status shown, String... methods) {
        return hold(new Held(skipped, shown), methods);
    }

    /** A call held back by {@link #holdCall}: released once; tells when its answer has arrived. */
    static final class Held {
        private final AtomicInteger toSkip;
        private final CountDownLatch started = new CountDownLatch(1);
        private final CompletableFuture<Void> released = new CompletableFuture<>();
        private final CountDownLatch closed = new CountDownLatch(1);
        private final AtomicBoolean taken = new AtomicBoolean();
        private volatile @Nullable String method;
        private final @Nullable Status shown;

        private Held(int skipped, @Nullable Status shown) {
            this.toSkip = new AtomicInteger(skipped);
            this.shown = shown;
        }

        /** Returns whether the call starting now is the one to hold (each call of the chosen methods asks once). */
        private boolean takes(String name) {
            if (taken.get() || toSkip.getAndDecrement() > 0 || !taken.compareAndSet(false, true)) {
                return false;
            }
            method = name;
            started.countDown();
            return true;
        }

        /** Waits until the held call has started; returns its method. */
        String awaitStarted(Duration within) throws InterruptedException {
            if (!started.await(within.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no call was held within " + within);
            }
            return Objects.requireNonNull(method);
        }

        /** Sends the held call's request on to the server. */
        void release() {
            released.complete(null);
        }

        /** Waits until the server has answered the released call (the client may have stopped listening). */
        void awaitAnswered(Duration within) throws InterruptedException {
            if (!closed.await(within.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the released call was not answered within " + within);
            }
        }
    }

    /**
     * Runs {@code action} when the next call of {@code method} starts, on the thread that starts it, before anything of
     * the call is sent: another client's step that falls just before this client's request.
     */
    void beforeNextCall(String method, Runnable action) {
        beforeNext.put(method, action);
    }

    /** Calls of {@code method} started from now on never reach the server and never end. */
    void drop(String method, boolean on) {
        if (on) {
            dropped.add(method);
        } else {
            dropped.remove(method);
        }
    }

    /** Returns how many calls of {@code method} were started. */
    long started(String method) {
        return count(started, method);
    }

    /** Returns how many answers to calls of {@code method} were delivered to the client. */
    long answered(String method) {
        return count(answered, method);
    }

    private static long count(Map<String, LongAdder> counters, String method) {
        LongAdder counter = counters.get(method);
        return counter == null ? 0 : counter.sum();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
        String name = method.getFullMethodName();
        started.computeIfAbsent(name, m -> new LongAdder()).increment();
        Runnable before = beforeNext.remove(name);
        if (before != null) {
            before.run();
        }
        if (dropped.contains(name)) {
            return new NeverSent<>();
        }
        Held held = holdNext.get(name);
        if (held != null && held.takes(name)) {
            holdNext.values().removeIf(h -> h == held);
            return new HeldBack<>(next.newCall(method, options), held);
        }
        boolean mute = silenced.contains(name) || takeOne(silenceNext, name);
        boolean lose = !mute && takeOne(loseNext, name);
        Status lostAs = lose ? loseNextAs.remove(name) : null;
        Status answerLost = lostAs != null ? lostAs : Status.UNAVAILABLE.withDescription("the answer was lost (RpcFaults)");
        LongAdder answers = answered.computeIfAbsent(name, m -> new LongAdder());
        return new SimpleForwardingClientCall<>(next.newCall(method, options)) {
            @Override
            public void start(Listener<R> listener, Metadata headers) {
                super.start(new SimpleForwardingClientCallListener<>(listener) {
                    @Override
                    public void onMessage(R message) {
                        if (!mute && !lose) {
                            answers.increment();
                            super.onMessage(message);
                        }
                    }

                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        if (lose) {
                            super.onClose(answerLost, new Metadata());
                        } else if (!mute) {
                            super.onClose(status, trailers);
                        }
                    }
                }, headers);
            }
        };
    }

    private static boolean takeOne(Map<String, AtomicInteger> counts, String name) {
        AtomicInteger left = counts.get(name);
        while (left != null) {
            int now = left.get();
            if (now <= 0) {
                return false;
            }
            if (left.compareAndSet(now, now - 1)) {
                return true;
            }
        }
        return false;
    }

    /**
     * A call whose request waits for {@link Held#release} before anything of it goes to the server; then it runs as
     * usual, and its answer (if the client still listens) arrives as the server's.
     */
    private static final class HeldBack<Q, R> extends ClientCall<Q, R> {
        private final ClientCall<Q, R> call;
        private final Held held;
        private final List<Runnable> steps = new ArrayList<>();
        private boolean sent;

        HeldBack(ClientCall<Q, R> call, Held held) {
            this.call = call;
            this.held = held;
            held.released.thenRun(() -> {
                synchronized (this) { // in order, and before any step that comes after the release
                    sent = true;
                    steps.forEach(Runnable::run);
                    steps.clear();
                }
            });
        }

        private synchronized void step(Runnable step) {
            if (sent) {
                step.run();
            } else {
                steps.add(step);
            }
        }

        @Override
        public void start(Listener<R> listener, Metadata headers) {
            Status shown = held.shown;
            if (shown != null) {
                // the client hears of a failure now, on another thread as gRPC would tell it; the server's answer is dropped
                CompletableFuture.runAsync(() -> listener.onClose(shown, new Metadata()));
                step(() -> call.start(new Listener<R>() {
                    @Override
                    public void onClose(Status status, Metadata trailers) {
                        held.closed.countDown();
                    }
                }, headers));
                return;
            }
            step(() -> call.start(new SimpleForwardingClientCallListener<>(listener) {
                @Override
                public void onClose(Status status, Metadata trailers) {
                    held.closed.countDown();
                    super.onClose(status, trailers);
                }
            }, headers));
        }

        @Override
        public void request(int numMessages) {
            step(() -> call.request(numMessages));
        }

        @Override
        public void cancel(@Nullable String message, @Nullable Throwable cause) {
            if (held.shown == null) { // a call the client was told had failed is out of its hands: the request goes on
                step(() -> call.cancel(message, cause));
            }
        }

        @Override
        public void halfClose() {
            step(call::halfClose);
        }

        @Override
        public void sendMessage(Q message) {
            step(() -> call.sendMessage(message));
        }
    }

    /** A call lost before it left: it never reaches the server, and only a cancel ends it. */
    private static final class NeverSent<Q, R> extends ClientCall<Q, R> {
        private volatile @Nullable Listener<R> listener;

        @Override
        public void start(Listener<R> responseListener, Metadata headers) {
            listener = responseListener;
        }

        @Override
        public void request(int numMessages) {}

        @Override
        public void cancel(@Nullable String message, @Nullable Throwable cause) {
            Listener<R> current = listener;
            listener = null;
            if (current != null) {
                current.onClose(Status.CANCELLED.withDescription(message).withCause(cause), new Metadata());
            }
        }

        @Override
        public void halfClose() {}

        @Override
        public void sendMessage(Q message) {}
    }
}
