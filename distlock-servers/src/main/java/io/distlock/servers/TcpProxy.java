package io.distlock.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A TCP forwarder on a free loopback port, for network faults: {@link #cut()} drops every connection
 * and refuses new ones until {@link #heal()}; {@link #retarget(int)} sends new connections to another
 * server (a promoted replica) and drops the old ones; {@link #freeze()} holds every byte in both
 * directions, connections open, until {@link #thaw()} — to the client, a frozen server.
 * {@link #roundTrips()} counts request-reply exchanges, for benchmarks that report them. Thread per
 * direction; meant for a few clients.
 */
public final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final @Nullable String upstreamHost;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private volatile int upstreamPort;
    private volatile boolean cut;
    private volatile long delayMillis;
    private volatile boolean discardReplies;
    private volatile boolean closed;
    private final LongAdder roundTrips = new LongAdder();
    private final java.util.concurrent.locks.ReentrantLock frozenLock = new java.util.concurrent.locks.ReentrantLock();
    private final java.util.concurrent.locks.Condition thawed = frozenLock.newCondition();
    private boolean frozen;

    private TcpProxy(@Nullable String upstreamHost, int upstreamPort) {
        this.upstreamHost = upstreamHost;
        this.upstreamPort = upstreamPort;
        try {
            this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open a proxy port", e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "tcp-proxy-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** Starts a proxy to {@code 127.0.0.1:upstreamPort}. */
    public static TcpProxy to(int upstreamPort) {
        return new TcpProxy(null, upstreamPort);
    }

    /** Starts a proxy, listening on the loopback address, to {@code host:port} (another machine's server). */
    public static TcpProxy to(String host, int port) {
        return new TcpProxy(host, port);
    }

    /** Returns the port clients connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Returns the server port connections are forwarded to. */
    public int upstreamPort() {
        return upstreamPort;
    }

    /** Drops all connections and refuses new ones (they are closed at once) until {@link #heal()}. */
    public void cut() {
        synchronized (this) {
            cut = true;
        }
        dropAll();
    }

    /** Lets connections through again. */
    public void heal() {
        cut = false;
    }

    /** Delays every chunk forwarded in either direction by {@code delay} (a slow network or server); zero to stop. */
    public void delay(java.time.Duration delay) {
        this.delayMillis = delay.toMillis();
    }

    /** Holds every byte in both directions (connections stay open, nothing is answered) until {@link #thaw()}. */
    public void freeze() {
        frozenLock.lock();
        try {
            frozen = true;
        } finally {
            frozenLock.unlock();
        }
    }

    /** Forwards again, the held bytes first. */
    public void thaw() {
        frozenLock.lock();
        try {
            frozen = false;
            thawed.signalAll();
        } finally {
            frozenLock.unlock();
        }
    }

    private void awaitThawed() throws InterruptedException {
        frozenLock.lock();
        try {
            while (frozen && !closed) {
                thawed.await(100, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
        } finally {
            frozenLock.unlock();
        }
    }

    /**
     * While {@code discard} is true, bytes from the server to the clients are read and thrown away
     * (replies lost on the way) while requests still reach the server; connections stay open.
     */
    public void discardReplies(boolean discard) {
        this.discardReplies = discard;
    }

    /** Forwards new connections to another port and drops the current ones. */
    public void retarget(int port) {
        synchronized (this) {
            upstreamPort = port;
        }
        dropAll();
    }

    /**
     * Returns how many request-reply exchanges have passed, over all connections: a client write that
     * follows a server answer (or opens a connection) starts one. Pipelined requests sent together count
     * once, as they cost one network round trip; a server message nobody asked for costs none.
     */
    public long roundTrips() {
        return roundTrips.sum();
    }

    private void dropAll() {
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return; // closed
            }
            if (cut) {
                closeQuietly(client);
                continue;
            }
            Socket upstream = new Socket();
            int port = upstreamPort;
            try {
                // pass each write on as it comes: with Nagle's algorithm on the proxy's sockets, a protocol that writes a
                // request in two pieces (gRPC's headers and data) waits for the delayed ACK, 40 ms a call
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                upstream.connect(upstreamHost == null ? new InetSocketAddress(InetAddress.getLoopbackAddress(), port)
                        : new InetSocketAddress(upstreamHost, port), 2000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            // cut() or retarget() may have run while we connected: register only if neither did
            synchronized (this) {
                if (cut || port != upstreamPort) {
                    closeQuietly(client);
                    closeQuietly(upstream);
                    continue;
                }
                sockets.add(client);
                sockets.add(upstream);
            }
            // a round trip starts when the client writes after the server has answered (or first)
            AtomicBoolean answered = new AtomicBoolean(true);
            pump(client, upstream, false, answered);
            pump(upstream, client, true, answered);
        }
    }

    private void pump(Socket from, Socket to, boolean replies, AtomicBoolean answered) {
        Thread thread = new Thread(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    awaitThawed();
                    long delay = delayMillis;
                    if (delay > 0) {
                        Thread.sleep(delay);
                    }
                    if (replies && discardReplies) {
                        continue;
                    }
                    if (replies) {
                        answered.set(true);
                    } else if (answered.compareAndSet(true, false)) {
                        roundTrips.increment();
                    }
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException ignored) {
                // one side closed or was dropped
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                closeQuietly(from);
                closeQuietly(to);
                sockets.remove(from);
                sockets.remove(to);
            }
        }, "tcp-proxy-pump-" + port());
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        dropAll();
    }

    @Override
    public String toString() {
        return "TcpProxy[" + port() + " -> " + upstreamPort + (cut ? ", cut" : "") + "]";
    }
}
