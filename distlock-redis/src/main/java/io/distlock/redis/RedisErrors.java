package io.distlock.redis;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** Turns Lettuce failures into distlock exceptions that name the server, the operation and the lock. */
final class RedisErrors {
    /** Server error replies that mean "not now" rather than "never": the server is there but cannot serve. */
    private static final String[] TRANSIENT = {"LOADING", "BUSY", "MASTERDOWN", "READONLY", "TRYAGAIN", "CLUSTERDOWN"};

    private final String server;
    private final Duration timeout;

    RedisErrors(String server, Duration timeout) {
        this.server = server;
        this.timeout = timeout;
    }

    LockException translate(Throwable failure, String operation, String lockName) {
        Throwable cause = unwrap(failure);
        String what = operation + " of lock '" + lockName + "'";
        if (cause instanceof RedisCommandTimeoutException) {
            return new BackendUnavailableException(what + ": Redis at " + server + " did not answer within " + timeout, cause);
        }
        if (cause instanceof RedisCommandExecutionException) {
            String reply = String.valueOf(cause.getMessage());
            for (String code : TRANSIENT) {
                if (reply.startsWith(code)) {
                    return new BackendUnavailableException(what + ": Redis at " + server + " cannot serve now: " + reply, cause);
                }
            }
            return new LockException(what + " was refused by Redis at " + server + ": " + reply
                    + (reply.startsWith("NOPERM") ? " (the ACL user needs the key pattern and channel pattern of the key prefix and EVALSHA, EVAL, GET)" : ""),
                    cause);
        }
        if (cause instanceof LockException lockException) {
            return lockException;
        }
        return new BackendUnavailableException(what + ": Redis at " + server + " is unreachable: " + cause.getMessage(), cause);
    }

    static Throwable unwrap(Throwable failure) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
