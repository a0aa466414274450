package io.distlock.servers;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** Finds free TCP ports on the loopback interface (never the services' default ports). */
public final class FreePorts {
    private FreePorts() {}

    /** Returns a port that was free a moment ago; callers retry on the rare collision. */
    public static int next() {
        for (int attempt = 0; attempt < 20; attempt++) {
            try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                socket.setReuseAddress(true);
                int port = socket.getLocalPort();
                if (port != 6379 && port != 5432 && port != 3306 && port != 2181 && port != 2379) {
                    return port;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot find a free port", e);
            }
        }
        throw new IllegalStateException("no free port found");
    }
}
