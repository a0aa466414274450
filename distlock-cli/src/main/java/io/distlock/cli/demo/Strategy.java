package io.distlock.cli.demo;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The locking strategies the demo races, from no lock to distlock with fencing tokens. */
public enum Strategy {
    NO_LOCK("no-lock", "read stock, decide, write back; no lock at all", false),
    SETNX_DEL("setnx-del", "SET NX PX, then DEL without checking the owner (frees whoever holds it)", false),
    GET_THEN_DEL("get-then-del", "owner checked with GET, then DEL: two commands, not atomic", false),
    SETNX_GETSET("setnx-getset", "SETNX of an expiry timestamp, GETSET to take over expired locks (client clocks)", false),
    SHORT_LEASE("set-px-short-lease", "SET NX PX + Lua compare-and-delete, lease shorter than the slowest work", false),
    DISTLOCK("distlock", "distlock lock: watchdog renews the lease; checks lease.remaining() before writing", true),
    DISTLOCK_FENCED("distlock-fenced", "distlock lock + fencing token checked by the store on read and write", true);

    private final String id;
    private final String description;
    private final boolean distlock;

    Strategy(String id, String description, boolean distlock) {
        this.id = id;
        this.description = description;
        this.distlock = distlock;
    }

    /** Returns the name used on the command line and in results. */
    public String id() {
        return id;
    }

    /** Returns what the strategy does, in one line. */
    public String description() {
        return description;
    }

    /** Returns whether this is one of distlock's strategies (expected never to oversell). */
    public boolean isDistlock() {
        return distlock;
    }

    /** Returns the strategy with this command-line name. */
    public static Strategy fromId(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        for (Strategy strategy : values()) {
            if (strategy.id.equals(wanted)) {
                return strategy;
            }
        }
        throw new IllegalArgumentException("unknown strategy '" + id + "'; choose from " + ids());
    }

    /** Returns all strategy names, comma-separated. */
    public static String ids() {
        return Arrays.stream(values()).map(Strategy::id).collect(Collectors.joining(", "));
    }
}
