package io.distlock.etcd;

import io.distlock.BackendUnavailableException;
import io.distlock.LockException;
import io.distlock.spi.RefusedUse;
import io.etcd.jetcd.common.exception.ClosedClientException;
import io.etcd.jetcd.common.exception.EtcdException;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/** Turns jetcd and gRPC failures into distlock exceptions naming the endpoints and the lock. */
final class EtcdErrors {
    private final String endpoints;

    EtcdErrors(String endpoints) {
        this.endpoints = endpoints;
    }

    /** Returns the distlock exception for {@code failure}; a use the backend refused ({@link RefusedUse}) is passed on as it is. */
    RuntimeException translate(Throwable failure, String operation, String lockName) {
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof LockException lockException) {
            return lockException;
        }
        if (cause instanceof RefusedUse refused) {
            return refused;
        }
        String what = operation + " of lock '" + lockName + "'";
        if (cause instanceof TimeoutException) {
            return new BackendUnavailableException(what + ": etcd at " + endpoints + " did not answer in time", cause);
        }
        if (cause instanceof ClosedClientException) {
            return new LockException(what + ": the etcd client is closed", cause);
        }
        if (cause instanceof EtcdException etcd) {
            switch (etcd.getErrorCode()) {
                case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, ABORTED, RESOURCE_EXHAUSTED -> {
                    return new BackendUnavailableException(what + ": etcd at " + endpoints + " is unavailable: " + etcd.getMessage(), cause);
                }
                case PERMISSION_DENIED, UNAUTHENTICATED -> {
                    return refused(what, etcd.getMessage(), cause);
                }
                default -> {
                    return new LockException(what + " failed on etcd at " + endpoints + ": " + etcd.getMessage(), cause);
                }
            }
        }
        if (cause instanceof StatusRuntimeException status) {
            return switch (status.getStatus().getCode()) {
                case UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED -> new BackendUnavailableException(
                        what + ": etcd at " + endpoints + " is unavailable: " + status.getMessage(), cause);
                case PERMISSION_DENIED, UNAUTHENTICATED -> refused(what, status.getMessage(), cause);
                default -> new LockException(what + " failed on etcd at " + endpoints + ": " + status.getMessage(), cause);
            };
        }
        return new LockException(what + " failed on etcd at " + endpoints + ": " + cause, cause);
    }

    private LockException refused(String what, @Nullable String message, Throwable cause) {
        return new LockException(what + " was refused by etcd at " + endpoints + ": " + message
                + " (check the user and password, and that the user's role may read and write the namespace's key range)", cause);
    }
}
