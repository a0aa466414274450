package io.distlock.zookeeper.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** Asks a ZooKeeper server how it serves, with the {@code srvr} four-letter word (allowed by default). */
final class ZooKeeperStatus {
    private ZooKeeperStatus() {}

    /**
     * Returns the server's mode ({@code standalone}, {@code leader} or {@code follower}) if it serves
     * requests now, or empty if it does not answer or is not serving (no quorum, still syncing).
     */
    static Optional<String> mode(int clientPort) {
        return field(clientPort, "Mode: ");
    }

    /**
     * Returns how many packets the server has received from clients since it started ({@code srvr}'s
     * {@code Received}: every request, pings and connection requests included; four-letter words are not
     * counted), or empty if it does not answer.
     */
    static Optional<Long> packetsReceived(int clientPort) {
        return field(clientPort, "Received: ").map(Long::parseLong);
    }

    private static Optional<String> field(int clientPort, String prefix) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), clientPort), 500);
            socket.setSoTimeout(1000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return answer.lines().filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length()).trim()).findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
