package io.distlock.cli.locks;

import io.distlock.LockInspector.Holder;
import io.distlock.LockInspector.LockState;
import io.distlock.LockKind;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** How {@code distlock locks} prints locks: a table for people, JSON for tools. */
public final class LocksOutput {
    private LocksOutput() {}

    /** One line per holder (a lock without holders gets one line); waiters and permits on the lock's first line. */
    static String table(List<LockState> locks) {
        if (locks.isEmpty()) {
            return "no locks\n";
        }
        int nameWidth = Math.max(4, locks.stream().mapToInt(state -> state.name().length()).max().orElse(4));
        StringBuilder out = new StringBuilder();
        String format = "%-" + nameWidth + "s  %-15s  %-6s  %-28s  %20s  %10s  %7s%n";
        out.append(String.format(Locale.ROOT, format, "NAME", "KIND", "ROLE", "OWNER ID", "TOKEN", "LEASE LEFT", "WAITERS"));
        for (LockState state : locks) {
            String kind = state.kind().id() + (state.kind() == LockKind.SEMAPHORE ? " (" + state.permits() + ")" : "");
            String waiters = state.waiters() < 0 ? "-" : Integer.toString(state.waiters());
            if (state.holders().isEmpty()) {
                out.append(String.format(Locale.ROOT, format, state.name(), kind, "-", "(free)", "-", "-", waiters));
            }
            boolean first = true;
            for (Holder holder : state.holders()) {
                out.append(String.format(Locale.ROOT, format, first ? state.name() : "", first ? kind : "", holder.role(), holder.ownerId(),
                        Long.toString(holder.token()), lease(holder.leaseLeft()), first ? waiters : ""));
                first = false;
            }
        }
        return out.toString();
    }

    private static String lease(@Nullable Duration left) {
        if (left == null) {
            return "session";
        }
        return left.toMillis() >= 10_000 ? String.format(Locale.ROOT, "%.0f s", left.toMillis() / 1000.0)
                : String.format(Locale.ROOT, "%.1f s", left.toMillis() / 1000.0);
    }

    /** A JSON array of locks: name, kind, permits, waiters (null if unknown), holders with ownerId, token, leaseLeftMillis (null: a session), role. */
    static String json(List<LockState> locks) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < locks.size(); i++) {
            LockState state = locks.get(i);
            out.append(i == 0 ? "\n  " : ",\n  ").append("{\"name\": ").append(quote(state.name()))
                    .append(", \"kind\": ").append(quote(state.kind().id()))
                    .append(", \"permits\": ").append(state.permits())
                    .append(", \"waiters\": ").append(state.waiters() < 0 ? "null" : Integer.toString(state.waiters()))
                    .append(", \"holders\": [");
            for (int h = 0; h < state.holders().size(); h++) {
                Holder holder = state.holders().get(h);
                out.append(h == 0 ? "" : ", ").append("{\"ownerId\": ").append(quote(holder.ownerId()))
                        .append(", \"token\": ").append(holder.token())
                        .append(", \"leaseLeftMillis\": ").append(holder.leaseLeft() == null ? "null" : Long.toString(holder.leaseLeft().toMillis()))
                        .append(", \"role\": ").append(quote(holder.role())).append('}');
            }
            out.append("]}");
        }
        return out.append(locks.isEmpty() ? "]\n" : "\n]\n").toString();
    }

    /** Returns {@code text} as a JSON string. */
    public static String quote(String text) {
        StringBuilder quoted = new StringBuilder("\"");
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> quoted.append("\\\"");
                case '\\' -> quoted.append("\\\\");
                case '\n' -> quoted.append("\\n");
                case '\t' -> quoted.append("\\t");
                default -> {
                    if (c < 0x20) {
                        quoted.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        quoted.append(c);
                    }
                }
            }
        }
        return quoted.append('"').toString();
    }
}
