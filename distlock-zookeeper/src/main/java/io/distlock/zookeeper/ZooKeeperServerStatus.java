package io.distlock.zookeeper;

import java.io.IOException;
import java.time.Duration;
import org.apache.zookeeper.client.FourLetterWordMain;
import org.apache.zookeeper.common.X509Exception;
import org.jspecify.annotations.Nullable;

/**
 * What one ZooKeeper server says of itself to the {@code srvr} four-letter word (the only one a server allows by
 * default), for the doctor.
 *
 * @param server the server's {@code host:port}, as the target names it
 * @param answer how it answered
 * @param mode {@code Mode:} ({@code standalone}, {@code leader}, {@code follower}, {@code observer}, {@code read-only}),
 *     or null if it did not say
 * @param version {@code Zookeeper version:} up to its build date, or null if it did not say
 * @param detail why there is no answer (the I/O error), or the empty string
 */
record ZooKeeperServerStatus(String server, Answer answer, @Nullable String mode, @Nullable String version, String detail) {
    /** How a server answered {@code srvr}. */
    enum Answer {
        /** With its statistics: it serves clients. */
        SERVING,
        /** "not currently serving requests": a member without a quorum, or still syncing with its leader. */
        NOT_SERVING,
        /**
         * "not in the whitelist" ({@code 4lw.commands.whitelist} leaves {@code srvr} out: servers before 3.5, which
         * always allow it), or nothing at all on an open connection (four-letter words filtered on the way).
         */
        REFUSED,
        /** Not at all: the connection failed. */
        NONE
    }

    /** Asks {@code server} ({@code host:port}) with {@code srvr}, waiting at most {@code timeout}; never throws. */
    static ZooKeeperServerStatus ask(String server, Duration timeout) {
        int colon = server.lastIndexOf(':');
        String host = server.substring(0, colon).replace("[", "").replace("]", "");
        int port = Integer.parseInt(server.substring(colon + 1));
        String text;
        try {
            text = FourLetterWordMain.send4LetterWord(host, port, "srvr", false, (int) Math.max(1, timeout.toMillis()));
        } catch (IOException | X509Exception.SSLContextException | RuntimeException e) {
            return new ZooKeeperServerStatus(server, Answer.NONE, null, null, String.valueOf(e.getMessage()));
        }
        if (text.contains("not in the whitelist") || text.isBlank()) {
            return new ZooKeeperServerStatus(server, Answer.REFUSED, null, null, text.isBlank() ? "an empty answer" : "not in the whitelist");
        }
        if (text.contains("not currently serving requests")) {
            return new ZooKeeperServerStatus(server, Answer.NOT_SERVING, null, null, "");
        }
        String mode = field(text, "Mode:");
        String version = field(text, "Zookeeper version:");
        if (mode == null && version == null) {
            return new ZooKeeperServerStatus(server, Answer.REFUSED, null, null, "'" + text.strip() + "'");
        }
        return new ZooKeeperServerStatus(server, Answer.SERVING, mode, version == null ? null : version.split(",")[0].trim(), "");
    }

    /** Returns how this server is, for an observed line: {@code 127.0.0.1:2181 leader}. */
    String describe() {
        return server + " " + switch (answer) {
            case SERVING -> mode == null ? "serving" : mode;
            case NOT_SERVING -> "not serving";
            case REFUSED -> "srvr refused (" + detail + ")";
            case NONE -> "no answer (" + detail + ")";
        };
    }

    private static @Nullable String field(String text, String prefix) {
        return text.lines().filter(line -> line.startsWith(prefix)).map(line -> line.substring(prefix.length()).trim())
                .findFirst().orElse(null);
    }
}
