package io.distlock.checker;

import static io.distlock.checker.Operation.ACQUIRE;
import static io.distlock.checker.Operation.FENCED_WRITE;
import static io.distlock.checker.Operation.LEASE;
import static io.distlock.checker.Operation.READ;
import static io.distlock.checker.Operation.RELEASE;
import static io.distlock.checker.Operation.WRITE;

import io.distlock.checker.Event.Type;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/** Builds a history step by step for the checker's tests; times are milliseconds from the start. */
final class HistoryScript {
    static final long MS = 1_000_000L;
    /** The lease of every history built here. */
    static final long LEASE_NANOS = 1000 * MS;
    static final Set<Invariant> ALL = EnumSet.allOf(Invariant.class);

    final List<Event> events = new ArrayList<>();
    final List<Fault> faults = new ArrayList<>();
    final List<FencedWrite> fenced = new ArrayList<>();
    long register;

    HistoryScript at(long ms, int process, Type type, Operation op, long token, long value) {
        return at(ms, process, type, op, token, value, "");
    }

    HistoryScript at(long ms, int process, Type type, Operation op, long token, long value, String note) {
        events.add(new Event(ms * MS, process, type, op, token, value, note));
        return this;
    }

    /** The holder of {@code token} records that its lease runs until {@code untilMs}. */
    HistoryScript lease(long ms, int process, long token, long untilMs) {
        return at(ms, process, Type.INFO, LEASE, token, untilMs * MS);
    }

    /** An exclusive hold from {@code fromMs} to {@code toMs} with a lease (recorded at the grant) of the history's lease time. */
    HistoryScript hold(long fromMs, int process, long token, long toMs) {
        at(fromMs, process, Type.INVOKE, ACQUIRE, 0, 0);
        at(fromMs + 1, process, Type.OK, ACQUIRE, token, 0);
        lease(fromMs + 1, process, token, fromMs + 1 + LEASE_NANOS / MS);
        return at(toMs, process, Type.INVOKE, RELEASE, token, 0);
    }

    /** A complete, well-behaved cycle of one process: acquire, read, write, fenced write, release. */
    HistoryScript cycle(long fromMs, int process, long token) {
        long value = register;
        at(fromMs, process, Type.INVOKE, ACQUIRE, 0, 0);
        at(fromMs + 1, process, Type.OK, ACQUIRE, token, 0);
        lease(fromMs + 1, process, token, fromMs + 1 + LEASE_NANOS / MS);
        at(fromMs + 2, process, Type.INVOKE, READ, token, 0);
        at(fromMs + 3, process, Type.OK, READ, token, value);
        at(fromMs + 4, process, Type.INVOKE, WRITE, token, value + 1);
        at(fromMs + 5, process, Type.OK, WRITE, token, value + 1);
        at(fromMs + 6, process, Type.INVOKE, FENCED_WRITE, token, value + 1);
        at(fromMs + 7, process, Type.OK, FENCED_WRITE, token, value + 1);
        fenced.add(new FencedWrite(token, process, value + 1));
        at(fromMs + 8, process, Type.INVOKE, RELEASE, token, 0);
        at(fromMs + 9, process, Type.OK, RELEASE, token, 0);
        register = value + 1;
        return this;
    }

    /** A read hold or permit: acquire (noted shared), read, release {@code holdMs} later. */
    HistoryScript shared(long fromMs, int process, long token, long holdMs) {
        events.add(new Event(fromMs * MS, process, Type.INVOKE, ACQUIRE, 0, 0, Checker.SHARED));
        events.add(new Event((fromMs + 1) * MS, process, Type.OK, ACQUIRE, token, 0, Checker.SHARED));
        lease(fromMs + 1, process, token, fromMs + 1 + LEASE_NANOS / MS);
        at(fromMs + 2, process, Type.INVOKE, READ, token, 0);
        at(fromMs + 3, process, Type.OK, READ, token, register);
        at(fromMs + holdMs, process, Type.INVOKE, RELEASE, token, 0);
        at(fromMs + holdMs + 1, process, Type.OK, RELEASE, token, 0);
        return this;
    }

    HistoryScript fault(FaultKind kind, int process, long fromMs, long toMs) {
        faults.add(new Fault(kind, process, fromMs * MS, toMs * MS, kind.id() + " of process " + process));
        return this;
    }

    CheckReport check(long endMs) {
        return check(endMs, History.Rules.DEFAULT);
    }

    CheckReport check(long endMs, int sharedLimit) {
        return check(endMs, History.Rules.DEFAULT.withSharedLimit(sharedLimit));
    }

    CheckReport check(long endMs, History.Rules rules) {
        return new Checker(history(endMs, rules), ALL, 2000 * MS).check();
    }

    History history(long endMs, History.Rules rules) {
        return new History(events, faults, 0, endMs * MS, LEASE_NANOS, register, fenced, rules);
    }
}
