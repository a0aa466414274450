package io.distlock.cli.demo;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;

/**
 * The broken locks from the blog posts, written the way they are usually written, so the demo can show
 * how each one fails. Do not copy these.
 */
public final class TextbookLocks {
    private static final String COMPARE_AND_DELETE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";

    private TextbookLocks() {}

    /** SET NX PX, release by DEL without checking who holds it. */
    static DemoLock setNxDel(RedisCommands<String, String> redis, String key, long leaseMs) {
        return waited -> {
            spinUntil(waited, () -> "OK".equals(redis.set(key, "locked", SetArgs.Builder.nx().px(leaseMs))));
            return () -> {
                redis.del(key); // seed bug 1: may delete the lock of whoever took it after our lease ran out
                return true;
            };
        };
    }

    /** SET NX PX with an owner token; release checks with GET, then DELs in a second command. */
    static DemoLock getThenDel(RedisCommands<String, String> redis, String key, long leaseMs, Faults faults) {
        return waited -> {
            String me = UUID.randomUUID().toString();
            spinUntil(waited, () -> "OK".equals(redis.set(key, me, SetArgs.Builder.nx().px(leaseMs))));
            return () -> {
                if (me.equals(redis.get(key))) {
                    faults.betweenCheckAndDelete(); // seed bug 2: the lease can end right here
                    redis.del(key);
                }
                return true;
            };
        };
    }

    /** SETNX of an expiry timestamp; an expired lock is taken over with GETSET. Client clocks decide. */
    public static DemoLock setNxGetSet(RedisCommands<String, String> redis, String key, long leaseMs) {
        return waited -> {
            long[] myExpiry = new long[1];
            spinUntil(waited, () -> {
                long expiry = System.currentTimeMillis() + leaseMs + 1;
                if (redis.setnx(key, Long.toString(expiry))) {
                    myExpiry[0] = expiry;
                    return true;
                }
                String current = redis.get(key);
                if (current != null && Long.parseLong(current) < System.currentTimeMillis()) {
                    String previous = redis.getset(key, Long.toString(expiry)); // racing GETSETs overwrite each other
                    if (current.equals(previous)) {
                        myExpiry[0] = expiry;
                        return true;
                    }
                }
                return false;
            });
            return () -> {
                if (System.currentTimeMillis() < myExpiry[0]) {
                    redis.del(key); // the check and the DEL are two steps: another holder may be in between
                }
                return true;
            };
        };
    }

    /** SET NX PX with an owner token and an atomic Lua compare-and-delete, but a fixed lease. */
    public static DemoLock shortLease(RedisCommands<String, String> redis, String key, long leaseMs) {
        return waited -> {
            String me = UUID.randomUUID().toString();
            spinUntil(waited, () -> "OK".equals(redis.set(key, me, SetArgs.Builder.nx().px(leaseMs))));
            return () -> {
                Long deleted = redis.eval(COMPARE_AND_DELETE, ScriptOutputType.INTEGER, new String[] {key}, me);
                return deleted == 1L; // correct release; the bug is the lease that ran out mid-work
            };
        };
    }

    /** The retry loop every blog post uses: try, sleep a millisecond, try again. */
    private static void spinUntil(boolean[] waited, java.util.function.BooleanSupplier attempt) throws InterruptedException {
        boolean first = true;
        while (!attempt.getAsBoolean()) {
            if (first) {
                waited[0] = true;
                first = false;
            }
            Thread.sleep(1);
        }
    }
}
