package io.distlock.checker;

import static io.distlock.checker.Operation.ACQUIRE;

import io.distlock.checker.CheckReport.Result;
import io.distlock.checker.Event.Type;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The {@link Invariant#ORDER} invariant: a lock that queues its waiters grants them in arrival order. */
final class OrderCheck {
    /*
     * When did a waiter surely join the server's queue? Its worker records QUEUED when it sees the client waiting
     * for its turn, which it does only after the join was answered "not yet". Without that record (or before it),
     * the bound serves: the engine fails a join that is not answered within the operation timeout, so an acquire
     * still pending History.Rules.orderBoundNanos after its invoke (the operation timeout plus a margin for the
     * client to send the join) has surely joined the queue by then. Any acquisition invoked after that moment
     * arrived behind it, and must not be granted while it still waits. Pairs of two shared holds are not
     * judged: readers (or permits) granted together may see their grants in either order. An exclusive grant
     * can follow another only after that one was granted and released, so for pairs with an exclusive side
     * the order of the ok events is the order of the grants. Allowed: a fault that loses the queue (a lock
     * losing fault of the deployment) or sends waiters to its back (a requeue fault: a ZooKeeper member's loss), or a client fault on the waiter itself (paused, cut off or killed, it
     * can miss its heartbeat and join again at the tail), active between the waiter's invoke and the grant
     * that overtook it.
     */
    private final History history;
    private final EventText text;

    OrderCheck(History history) {
        this.history = history;
        this.text = new EventText(history);
    }

    /**
     * One acquire: invoked, then granted, refused, failed, or cut short by a kill or the end of the run; and when it
     * surely waited in the server's queue (its QUEUED record, or its invoke plus the bound, whichever came first).
     */
    private record Attempt(Event invoke, long endNanos, boolean granted, boolean shared, String outcome, long queuedNanos) {
        boolean queuedBeforeItEnded() {
            return queuedNanos - endNanos < 0;
        }
    }

    Result result(boolean claimed) {
        long bound = history.rules().orderBoundNanos();
        if (bound == 0) {
            return new Result(Invariant.ORDER, claimed, true, 0, "not judged: this lock does not promise arrival order", List.of());
        }
        List<Attempt> attempts = attempts(bound);
        List<Attempt> granted = new ArrayList<>(attempts.stream().filter(Attempt::granted).toList());
        granted.sort(Comparator.comparingLong(a -> a.invoke().nanos() - history.startNanos()));
        int judged = 0;
        int waiters = 0;
        int violations = 0;
        List<String> examples = new ArrayList<>();
        for (Attempt waiter : attempts) {
            if (!waiter.queuedBeforeItEnded()) {
                continue;
            }
            waiters++;
            long queuedBy = waiter.queuedNanos();
            for (int i = firstInvokedAfter(granted, queuedBy); i < granted.size(); i++) {
                Attempt later = granted.get(i);
                if (later.invoke().nanos() - waiter.endNanos() >= 0) {
                    break;
                }
                if (later.invoke().process() == waiter.invoke().process() || (later.shared() && waiter.shared())) {
                    continue;
                }
                judged++;
                if (later.endNanos() - waiter.endNanos() < 0 && !excused(waiter, later)) {
                    violations++;
                    if (examples.size() < Checker.MAX_EXAMPLES) {
                        examples.add(describe(waiter, later));
                    }
                }
            }
        }
        String summary = violations == 0
                ? judged + " later arrivals judged against " + waiters + " surely queued waiters: none granted ahead"
                : violations + " of " + judged + " later arrivals judged against " + waiters + " surely queued waiters were granted ahead";
        return new Result(Invariant.ORDER, claimed, violations == 0, violations, summary, examples);
    }

    private boolean excused(Attempt waiter, Attempt later) {
        return history.faultsBetween(waiter.invoke().nanos(), later.endNanos()).stream()
                .anyMatch(f -> history.rules().lockLosingFaults().contains(f.kind()) || history.rules().requeueFaults().contains(f.kind())
                        || f.process() == waiter.invoke().process());
    }

    private String describe(Attempt waiter, Attempt later) {
        return String.format(Locale.ROOT, "process %d was granted ahead of process %d, which had been waiting since %s "
                + "(surely queued by %s) and was %s at %s:%n%s%n%s%n%s", later.invoke().process(), waiter.invoke().process(),
                text.seconds(waiter.invoke().nanos()), text.seconds(waiter.queuedNanos()), waiter.outcome(),
                text.seconds(waiter.endNanos()), text.describe(waiter.invoke()), text.describe(later.invoke()),
                String.format(Locale.ROOT, "  %s  process %d granted", text.seconds(later.endNanos()), later.invoke().process()))
                + text.faultsNear(waiter.invoke().nanos(), later.endNanos());
    }

    private int firstInvokedAfter(List<Attempt> byInvoke, long nanos) {
        int low = 0;
        int high = byInvoke.size();
        while (low < high) {
            int mid = (low + high) >>> 1;
            if (byInvoke.get(mid).invoke().nanos() - nanos <= 0) {
                low = mid + 1;
            } else {
                high = mid;
            }
        }
        return low;
    }

    private List<Attempt> attempts(long bound) {
        Map<Integer, Long> killedAt = new HashMap<>();
        history.faults().stream().filter(f -> f.kind() == FaultKind.KILL && f.process() >= 0)
                .forEach(f -> killedAt.put(f.process(), f.startNanos()));
        Map<Integer, Event> pending = new HashMap<>();
        Map<Integer, Long> queued = new HashMap<>();
        List<Attempt> attempts = new ArrayList<>();
        for (Event e : history.events()) {
            if (e.is(Type.INFO, Operation.QUEUED) && pending.containsKey(e.process())) {
                queued.putIfAbsent(e.process(), e.nanos());
            }
            if (e.op() != ACQUIRE) {
                continue;
            }
            if (e.type() == Type.INVOKE) {
                pending.put(e.process(), e);
                queued.remove(e.process());
                continue;
            }
            Event invoke = pending.remove(e.process());
            if (invoke != null) {
                long end = e.nanos();
                long wait = history.rules().waitNanos();
                if (e.type() == Type.FAIL && wait > 0 && invoke.nanos() + wait - end < 0) {
                    end = invoke.nanos() + wait; // it left the queue at its deadline, before its call returned
                }
                attempts.add(new Attempt(invoke, end, e.type() == Type.OK, Holds.isShared(invoke),
                        e.type() == Type.OK ? "granted" : e.type() == Type.FAIL ? "still waiting when its wait ran out" : "failed",
                        queuedAt(invoke, queued.remove(e.process()), bound)));
            }
        }
        pending.forEach((process, invoke) -> {
            Long killed = killedAt.get(History.clientOf(process)); // a kill ends every thread of the client
            long queuedAt = queuedAt(invoke, queued.get(process), bound);
            if (killed != null && killed - invoke.nanos() >= 0) {
                attempts.add(new Attempt(invoke, killed, false, Holds.isShared(invoke), "killed while waiting", queuedAt));
            } else {
                attempts.add(new Attempt(invoke, history.endNanos(), false, Holds.isShared(invoke), "still waiting at the end of the run", queuedAt));
            }
        });
        return attempts;
    }

    /** When the attempt surely waited in the queue: its QUEUED record, or its invoke plus the bound, whichever is earlier. */
    private static long queuedAt(Event invoke, @Nullable Long recorded, long bound) {
        long byBound = invoke.nanos() + bound;
        return recorded != null && recorded - byBound < 0 ? recorded : byBound;
    }
}
