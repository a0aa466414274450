package io.distlock.checker;

/**
 * One entry of a recorded history: a process invoked an operation, or learned its outcome.
 *
 * @param nanos when it happened, on one clock shared by all processes of the run ({@code System.nanoTime()}
 *     on one machine: Linux's monotonic clock is the same for every process)
 * @param process the process id (a replaced process gets a new id)
 * @param type invoke, or the outcome: ok, fail (definitely did not happen) or info (indeterminate)
 * @param op the operation
 * @param token the fencing token involved, 0 if none
 * @param value the register value read or written, 0 if none
 * @param note free text without line breaks (an error message), may be empty
 */
public record Event(long nanos, int process, Type type, Operation op, long token, long value, String note) {
    /** Prefix of event lines in a worker's output. */
    public static final String LINE_PREFIX = "EV ";

    /** Invocation or outcome. */
    public enum Type { INVOKE, OK, FAIL, INFO }

    public Event {
        if (op == null) {
            throw new IllegalArgumentException("op must not be null");
        }
        note = note == null ? "" : note.replaceAll("[\\r\\n]+", " ");
    }

    /** Shorthand without a note. */
    public static Event of(long nanos, int process, Type type, Operation op, long token, long value) {
        return new Event(nanos, process, type, op, token, value, "");
    }

    /** Returns the event as one line: {@code EV nanos process type op token value note}. */
    public String toLine() {
        return LINE_PREFIX + nanos + " " + process + " " + type + " " + op.id() + " " + token + " " + value + (note.isEmpty() ? "" : " " + note);
    }

    /** Parses a line written by {@link #toLine()}. */
    public static Event parse(String line) {
        if (!line.startsWith(LINE_PREFIX)) {
            throw new IllegalArgumentException("not an event line: " + line);
        }
        String[] parts = line.substring(LINE_PREFIX.length()).split(" ", 7);
        if (parts.length < 6) {
            throw new IllegalArgumentException("event line has " + parts.length + " fields, needs at least 6: " + line);
        }
        return new Event(Long.parseLong(parts[0]), Integer.parseInt(parts[1]), Type.valueOf(parts[2]), Operation.fromId(parts[3]),
                Long.parseLong(parts[4]), Long.parseLong(parts[5]), parts.length > 6 ? parts[6] : "");
    }

    /** True if this event has the given type and operation. */
    public boolean is(Type type, Operation op) {
        return this.type == type && this.op == op;
    }
}
