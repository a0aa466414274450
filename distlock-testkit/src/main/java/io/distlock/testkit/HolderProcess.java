package io.distlock.testkit;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockOptions;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM that acquires a lock and holds it (with renewal) until it is killed: the "holder
 * crashed without releasing" case. Prints {@code HELD <fencing token>} once it holds the lock.
 */
public final class HolderProcess {
    private HolderProcess() {}

    /** Arguments: factory class, target, lock name, lease millis. */
    public static void main(String[] args) throws Exception {
        LockClientFactory factory = (LockClientFactory) Class.forName(args[0]).getDeclaredConstructor().newInstance();
        LockClient client = factory.create(args[1]);
        LockOptions options = LockOptions.builder().leaseTime(Duration.ofMillis(Long.parseLong(args[3]))).build();
        Lease lease = client.getLock(args[2], options).acquire();
        System.out.println("HELD " + lease.fencingToken());
        System.out.flush();
        Thread.sleep(TimeUnit.MINUTES.toMillis(10)); // killed long before
    }

    /** Starts a holder JVM with this JVM's class path. */
    public static Process start(Class<? extends LockClientFactory> factory, String target, String lockName, Duration lease)
            throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(List.of(java, "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                HolderProcess.class.getName(), factory.getName(), target, lockName, Long.toString(lease.toMillis())))
                .redirectErrorStream(true)
                .start();
    }
}
