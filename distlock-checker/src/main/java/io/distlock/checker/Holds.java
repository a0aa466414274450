package io.distlock.checker;

import static io.distlock.checker.Operation.ABORT;
import static io.distlock.checker.Operation.ACQUIRE;
import static io.distlock.checker.Operation.LEASE;
import static io.distlock.checker.Operation.LOST;
import static io.distlock.checker.Operation.RELEASE;

import io.distlock.checker.Event.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Derives the {@link Hold}s of a history: who held the lock when, as each holder saw it, and until when its lease ran. */
final class Holds {
    /*
     * A hold runs from an acquire's ok to the first of: the release's invoke, a loss notice or an abort of the
     * same token, the next acquire ok of the process (a missing release), the process being killed, the end of
     * the run. Its lease end is the latest deadline its process recorded for its token (LEASE events) stamped
     * before the hold ended, or the loss notice of its token if that came first (a lost lease is not valid, whatever
     * its deadline). Both come from the client's own threads (the watchdog, the event threads), so one can be
     * stamped a moment before the acquire's ok that it belongs to: those count too. Tokens identify acquisitions here: a check worker holds one lease at a time
     * and never re-enters, and every backend issues each token once (the tokens invariant checks that).
     */
    private Holds() {}

    static List<Hold> of(History history) {
        Map<Integer, Long> killedAt = new HashMap<>();
        for (Fault fault : history.faults()) {
            if (fault.kind() == FaultKind.KILL && fault.process() >= 0) {
                killedAt.put(fault.process(), fault.startNanos());
            }
        }
        Map<String, Long> leaseEnds = new HashMap<>();
        Map<String, Long> lostAt = new HashMap<>();
        Map<Integer, Event> invoked = new HashMap<>();
        Map<Integer, Open> open = new HashMap<>();
        List<Hold> holds = new ArrayList<>();
        for (Event e : history.events()) {
            Open held = open.get(e.process());
            if (e.is(Type.INVOKE, ACQUIRE)) {
                invoked.put(e.process(), e);
            } else if (e.is(Type.INFO, LEASE)) {
                leaseEnds.merge(key(e.process(), e.token()), e.value(), (a, b) -> b - a > 0 ? b : a);
            }
            if (e.is(Type.INFO, LOST) && e.token() != 0) {
                lostAt.putIfAbsent(key(e.process(), e.token()), e.nanos());
            }
            if (e.is(Type.OK, ACQUIRE)) {
                if (held != null) {
                    holds.add(held.end(e.nanos(), "reacquire", leaseEnds, lostAt));
                }
                Event invoke = invoked.remove(e.process());
                open.put(e.process(), new Open(e, invoke == null ? e.nanos() : invoke.nanos()));
            } else if (held != null && (e.is(Type.INVOKE, RELEASE) || e.is(Type.INFO, LOST) || e.is(Type.INFO, ABORT))
                    && e.token() == held.acquired.token()) {
                holds.add(held.end(e.nanos(), e.op().id(), leaseEnds, lostAt));
                open.remove(e.process());
            }
        }
        open.forEach((process, held) -> {
            Long killed = killedAt.get(History.clientOf(process)); // a kill ends every thread of the client
            if (killed != null && killed - held.acquired.nanos() >= 0) {
                holds.add(held.end(killed, "killed", leaseEnds, lostAt));
            } else {
                holds.add(held.end(history.endNanos(), "end-of-run", leaseEnds, lostAt));
            }
        });
        holds.sort(Comparator.comparingLong(h -> h.startNanos() - history.startNanos()));
        return holds;
    }

    static boolean isShared(Event acquired) {
        return acquired.note().equals(Checker.SHARED);
    }

    private static String key(int process, long token) {
        return process + ":" + token;
    }

    /** A hold that has begun and not ended yet. */
    private record Open(Event acquired, long invokeNanos) {
        Hold end(long endNanos, String endedBy, Map<String, Long> leaseEnds, Map<String, Long> lostAt) {
            String key = key(acquired.process(), acquired.token());
            long leaseEnd = acquired.token() == 0 ? Hold.NO_LEASE_RECORD : leaseEnds.getOrDefault(key, Hold.NO_LEASE_RECORD);
            Long lost = lostAt.get(key);
            if (lost != null && (leaseEnd == Hold.NO_LEASE_RECORD || lost - leaseEnd < 0)) {
                leaseEnd = lost;
            }
            return new Hold(acquired.process(), acquired.token(), invokeNanos, acquired.nanos(), endNanos, endedBy, isShared(acquired),
                    leaseEnd);
        }
    }
}
