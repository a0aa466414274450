package io.distlock.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.servers.Await;
import io.distlock.servers.TcpProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TcpProxyTest {

    /** Sends SET/GET over a fresh connection through the proxy; returns GET's answer line. */
    private static String roundTrip(TcpProxy proxy, String value) throws IOException {
        return send(proxy.port(), "SET k " + value + "\r\nGET k\r\n");
    }

    /** Reads k from a server directly. */
    private static String valueOn(RedisServer server) throws IOException {
        return send(server.port(), "PING\r\nGET k\r\n");
    }

    private static String send(int port, String commands) throws IOException {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write(commands.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            String ok = in.readLine();
            if (ok == null) {
                throw new IOException("connection closed");
            }
            in.readLine(); // $<length>
            return in.readLine();
        }
    }

    @Test
    void forwardsCutsHealsAndRetargets() throws Exception {
        try (RedisServer first = RedisServer.launch(); RedisServer second = RedisServer.launch(); TcpProxy proxy = TcpProxy.to(first.port())) {
            assertThat(roundTrip(proxy, "one")).isEqualTo("one");

            Socket open = new Socket(InetAddress.getLoopbackAddress(), proxy.port());
            open.setSoTimeout(2000);
            proxy.cut();
            assertThat(open.getInputStream().read()).as("an open connection is dropped by cut()").isEqualTo(-1);
            assertThatThrownBy(() -> roundTrip(proxy, "two")).isInstanceOf(IOException.class);

            proxy.heal();
            assertThat(Await.succeeds(Duration.ofSeconds(5), "proxy forwards again", () -> roundTrip(proxy, "three"))).isEqualTo("three");

            proxy.retarget(second.port());
            assertThat(roundTrip(proxy, "four")).isEqualTo("four");
            assertThat(proxy.upstreamPort()).isEqualTo(second.port());
            assertThat(valueOn(second)).isEqualTo("four");
            assertThat(valueOn(first)).as("writes after retarget() go to the new server only").isEqualTo("three");
            open.close();
        }
    }

    @Test
    void aFrozenProxyHoldsRequestsAndRepliesUntilThawed() throws Exception {
        try (RedisServer server = RedisServer.launch(); TcpProxy proxy = TcpProxy.to(server.port())) {
            assertThat(roundTrip(proxy, "before")).isEqualTo("before");
            proxy.freeze();
            assertThatThrownBy(() -> roundTrip(proxy, "held")).as("nothing is answered while frozen").isInstanceOf(IOException.class);
            assertThat(valueOn(server)).as("nor does the request reach the server").isEqualTo("before");
            proxy.thaw();
            Await.untilAnswered(Duration.ofSeconds(5), "the held request ran once thawed", () -> "held".equals(valueOn(server)));
            assertThat(roundTrip(proxy, "after")).isEqualTo("after");
        }
    }

    @Test
    void discardsRepliesWhileRequestsStillReachTheServer() throws Exception {
        try (RedisServer server = RedisServer.launch(); TcpProxy proxy = TcpProxy.to(server.port())) {
            proxy.discardReplies(true);
            assertThatThrownBy(() -> roundTrip(proxy, "lost-reply")).as("no reply comes back").isInstanceOf(IOException.class);
            assertThat(valueOn(server)).as("the request ran").isEqualTo("lost-reply");

            proxy.discardReplies(false);
            assertThat(roundTrip(proxy, "answered")).isEqualTo("answered");
        }
    }

    @Test
    void countsOneRoundTripPerRequestAndAnswerPipelinedRequestsOnce() throws Exception {
        try (RedisServer server = RedisServer.launch(); TcpProxy proxy = TcpProxy.to(server.port());
                Socket socket = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
            for (int i = 0; i < 3; i++) {
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertThat(in.readLine()).isEqualTo("+PONG");
            }
            assertThat(proxy.roundTrips()).isEqualTo(3);

            out.write("PING\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(in.readLine()).isEqualTo("+PONG");
            assertThat(in.readLine()).isEqualTo("+PONG");
            assertThat(proxy.roundTrips()).as("two commands written together cost one round trip").isEqualTo(4);
        }
    }
}
