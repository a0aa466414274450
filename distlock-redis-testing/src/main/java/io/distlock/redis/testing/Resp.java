package io.distlock.redis.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A minimal Redis client for test set-up (replication, Sentinel, Cluster commands): one command per
 * connection, replies as String, Long, List or null; an error reply throws.
 */
public final class Resp {
    private Resp() {}

    /** Sends one command to 127.0.0.1:{@code port} and returns the reply. */
    public static @Nullable Object call(int port, String... args) {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
            for (String arg : args) {
                byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
                request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
            }
            out.write(request.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()), port, args[0]);
        } catch (IOException e) {
            throw new UncheckedIOException("redis command " + args[0] + " on port " + port + " failed", e);
        }
    }

    /** Sends a command and returns the reply as text (bulk or simple string, integer, or lines of an array). */
    public static String text(int port, String... args) {
        Object reply = call(port, args);
        if (reply instanceof List<?> list) {
            List<String> lines = new ArrayList<>();
            list.forEach(item -> lines.add(String.valueOf(item)));
            return String.join("\n", lines);
        }
        return String.valueOf(reply);
    }

    /** Returns one field of an INFO section, e.g. {@code info(port, "replication", "role")}, or null. */
    public static @Nullable String info(int port, String section, String field) {
        for (String line : text(port, "INFO", section).split("\r?\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1).trim();
            }
        }
        return null;
    }

    private static @Nullable Object read(InputStream in, int port, String command) throws IOException {
        int type = in.read();
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("redis on port " + port + " answered " + command + " with: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int length = Integer.parseInt(line);
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in, port, command));
                }
                return items;
            }
            default:
                throw new IllegalStateException("unexpected reply type '" + (char) type + "' from redis on port " + port);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != -1 && b != '\r') {
            line.write(b);
        }
        in.read(); // '\n'
        return line.toString(StandardCharsets.UTF_8);
    }
}
