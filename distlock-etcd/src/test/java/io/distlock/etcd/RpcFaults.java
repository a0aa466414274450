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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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

    private final Set<String> silenced = ConcurrentHashMap.newKeySet();
    private final Set<String> dropped = ConcurrentHashMap.newKeySet();
    private final Map<String, AtomicInteger> silenceNext = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> loseNext = new ConcurrentHashMap<>();
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
        boolean mute = silenced.contains(name) || takeOne(silenceNext, name);
        boolean lose = !mute && takeOne(loseNext, name);
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
                            super.onClose(Status.UNAVAILABLE.withDescription("the answer was lost (RpcFaults)"), new Metadata());
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
