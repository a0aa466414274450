package io.distlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * What an operator sees of the locks stored on a backend, read straight from its state (the CLI's
 * {@code distlock locks}): every kind of lock, its holders with their fencing tokens and leases, and its
 * waiters. Read-only; a snapshot that may be stale by the time it is shown.
 */
public interface LockInspector {

    /**
     * Returns the locks whose names match {@code pattern} ({@code *} any characters, {@code ?} one), held or
     * waited for, sorted by name and kind.
     *
     * @throws BackendUnavailableException if the backend does not answer within the operation timeout
     */
    List<LockState> list(String pattern);

    /** Returns the state of every kind of lock named {@code name} that has any. */
    default List<LockState> show(String name) {
        return list(name.replace("\\", "\\\\").replace("*", "\\*").replace("?", "\\?"));
    }

    /**
     * One lock as the backend stores it.
     *
     * @param name the lock's name
     * @param kind its kind
     * @param holders who holds it now (several for readers and permits)
     * @param waiters how many wait in its queue, or -1 where the backend keeps no queue (plain Redis and SQL locks)
     * @param permits a semaphore's number of permits, 0 for locks
     */
    record LockState(String name, LockKind kind, List<Holder> holders, int waiters, int permits) {
        /** Copies the holders. */
        public LockState {
            holders = List.copyOf(holders);
        }
    }

    /**
     * One holder of a lock.
     *
     * @param ownerId the owner id of the acquisition (unique per acquisition)
     * @param token its fencing token
     * @param leaseLeft how long its lease runs on the server unless renewed; null where the lock lives as long as a session
     * @param role {@code write}, {@code read}, {@code permit} or {@code hold}
     */
    record Holder(String ownerId, long token, @Nullable Duration leaseLeft, String role) {}

    /** Returns whether {@code name} matches the glob {@code pattern} ({@code *}, {@code ?}, backslash escapes). */
    static boolean matches(String pattern, String name) {
        return name.matches(globToRegex(pattern));
    }

    private static String globToRegex(String glob) {
        StringBuilder regex = new StringBuilder();
        for (int i = 0; i < glob.length(); i++) {
            char c = glob.charAt(i);
            if (c == '\\' && i + 1 < glob.length()) {
                regex.append(java.util.regex.Pattern.quote(String.valueOf(glob.charAt(++i))));
            } else if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else {
                regex.append(java.util.regex.Pattern.quote(String.valueOf(c)));
            }
        }
        return "(?s)" + regex;
    }

    /** Returns the optional state of one kind of the lock {@code name}. */
    default Optional<LockState> show(String name, LockKind kind) {
        return show(name).stream().filter(state -> state.kind() == kind).findFirst();
    }
}
