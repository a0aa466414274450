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
        return () -> {
            boolean waited = spinUntil(() -> "OK".equals(redis.set(key, "locked", SetArgs.Builder.nx().px(leaseMs))));
            return new DemoLock.Acquired(() -> {
                redis.del(key); // seed bug 1: may delete the lock of whoever took it after our lease ran out
                return true;
            }, waited);
        };
    }

    /** SET NX PX with an owner token; release checks with GET, then DELs in a second command. */
    static DemoLock getThenDel(RedisCommands<String, String> redis, String key, long leaseMs, Faults faults) {
        return () -> {
            String me = UUID.randomUUID().toString();
            boolean waited = spinUntil(() -> "OK".equals(redis.set(key, me, SetArgs.Builder.nx().px(leaseMs))));
            return new DemoLock.Acquired(() -> {
                if (me.equals(redis.get(key))) {
                    faults.betweenCheckAndDelete(); // seed bug 2: the lease can end right here
                    redis.del(key);
                }
                return true;
            }, waited);
        };
    }

    /** SETNX of an expiry timestamp; an expired lock is taken over with GETSET. Client clocks decide. */
    public static DemoLock setNxGetSet(RedisCommands<String, String> redis, String key, long leaseMs) {
        return () -> {
            long[] myExpiry = new long[1];
            boolean waited = spinUntil(() -> {
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
            return new DemoLock.Acquired(() -> {
                if (System.currentTimeMillis() < myExpiry[0]) {
                    redis.del(key); // the check and the DEL are two steps: another holder may be in between
                }
                return true;
            }, waited);
        };
    }

    /** SET NX PX with an owner token and an atomic Lua compare-and-delete, but a fixed lease. */
    public static DemoLock shortLease(RedisCommands<String, String> redis, String key, long leaseMs) {
        return () -> {
            String me = UUID.randomUUID().toString();
            boolean waited = spinUntil(() -> "OK".equals(redis.set(key, me, SetArgs.Builder.nx().px(leaseMs))));
            return new DemoLock.Acquired(() -> {
                Long deleted = redis.eval(COMPARE_AND_DELETE, ScriptOutputType.INTEGER, new String[] {key}, me);
                return deleted == 1L; // correct release; the bug is the lease that ran out mid-work
            }, waited);
        };
    }

    /** The retry loop every blog post uses: try, sleep a millisecond, try again. Returns whether the first try failed. */
    private static boolean spinUntil(java.util.function.BooleanSupplier attempt) throws InterruptedException {
        boolean waited = false;
        while (!attempt.getAsBoolean()) {
            waited = true;
            Thread.sleep(1);
        }
        return waited;
    }
}
