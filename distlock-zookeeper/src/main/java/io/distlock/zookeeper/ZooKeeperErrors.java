package io.distlock.zookeeper;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import java.util.concurrent.CompletionException;
import org.apache.zookeeper.KeeperException;

/** Turns ZooKeeper and Curator failures into distlock exceptions naming the ensemble and the lock. */
final class ZooKeeperErrors {
    private final String ensemble;

    ZooKeeperErrors(String ensemble) {
        this.ensemble = ensemble;
    }

    LockException translate(Throwable failure, String operation, String lockName) {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof LockException lockException) {
            return lockException;
        }
        String what = operation + " of lock '" + lockName + "'";
        if (cause instanceof KeeperException keeper) {
            switch (keeper.code()) {
                case CONNECTIONLOSS, SESSIONEXPIRED, OPERATIONTIMEOUT, SESSIONMOVED, NOTREADONLY, RECONFIGINPROGRESS -> {
                    return new BackendUnavailableException(what + ": ZooKeeper at " + ensemble + " is unavailable: " + keeper.code(), cause);
                }
                case NOAUTH, AUTHFAILED -> {
                    return new LockException(what + " was refused by ZooKeeper at " + ensemble + ": " + keeper.code()
                            + " (check the digest credentials and the ACLs of the namespace)", cause);
                }
                default -> {
                    return new LockException(what + " failed on ZooKeeper at " + ensemble + ": " + keeper.getMessage(), cause);
                }
            }
        }
        if (cause instanceof InterruptedException || cause instanceof IllegalStateException) {
            return new BackendUnavailableException(what + ": ZooKeeper client for " + ensemble + " is not usable: " + cause, cause);
        }
        return new LockException(what + " failed on ZooKeeper at " + ensemble + ": " + cause, cause);
    }
}
