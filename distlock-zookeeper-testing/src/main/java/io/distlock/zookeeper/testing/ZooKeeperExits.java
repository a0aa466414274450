package io.distlock.zookeeper.testing;

import java.util.concurrent.atomic.AtomicLong;
import org.apache.zookeeper.util.ServiceUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps ZooKeeper's in-process servers from ending this JVM. On a fatal error (a quorum port it cannot bind
 * is exit code 14) ZooKeeper asks to exit the JVM; in a test, the checker or the demo that would kill the
 * test JVM or the CLI with everything in it. The request is counted instead, and the member or server that
 * made it is reported failed by whoever waits for it, so that it can be started again on other ports.
 */
final class ZooKeeperExits {
    private static final Logger log = LoggerFactory.getLogger(ZooKeeperExits.class);
    private static final AtomicLong REQUESTS = new AtomicLong();
    private static volatile int lastCode;

    static {
        ServiceUtils.setSystemExitProcedure(code -> {
            lastCode = code;
            REQUESTS.incrementAndGet();
            log.warn("ZooKeeper asked to exit the JVM with code {}; not exiting (the server that asked is reported failed)", code);
        });
    }

    private ZooKeeperExits() {}

    /** Installs the guard (once per JVM) and returns how many exits ZooKeeper has asked for so far. */
    static long requests() {
        return REQUESTS.get();
    }

    /** Returns the code of the last exit ZooKeeper asked for (14: a quorum port it could not bind). */
    static int lastCode() {
        return lastCode;
    }
}
