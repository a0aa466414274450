package io.distlock.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/** Makes the engine's threads: daemons (they never keep an application alive) with numbered names. */
final class DaemonThreads {
    private DaemonThreads() {}

    static ThreadFactory named(String prefix) {
        AtomicInteger count = new AtomicInteger();
        ThreadFactory base = Executors.defaultThreadFactory();
        return runnable -> {
            Thread thread = base.newThread(runnable);
            thread.setName(prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
