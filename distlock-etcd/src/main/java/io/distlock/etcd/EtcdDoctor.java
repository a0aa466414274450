package io.distlock.etcd;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.OpenOptions;
import io.distlock.etcd.EtcdClusterFindings.Cluster;
import io.distlock.spi.RoundTripProbe;
import io.distlock.spi.TargetUri;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;

/**
 * The etcd doctor: reads what bears on our locks from a cluster, read only, connected as {@code open} connects (the
 * target's endpoints and credentials, the options' timeout): the members and their health, the leader, the session
 * TTL against the election timeout, authentication, alarms, the version and the round trips.
 */
final class EtcdDoctor {
    /*
     * Two jetcd clients: one without credentials, always, because only a read without a user tells whether etcd asks
     * for one (etcd 3.4 has no AuthStatus call); and the application's, when the target has credentials. Cluster facts
     * (MemberList, Status, Alarm) are read with the application's client when etcd accepted its credentials, else with
     * the anonymous one (etcd 3.4 answers those without a user). The election timeout is not in etcd's API: it is read
     * from each member's command line in /debug/vars (EtcdSessionTtlCheck). Nothing is written: every request is a
     * read; the only failure thrown is an unreachable cluster, every other failure is an UNKNOWN finding saying why.
     */
    static final DoctorCheck LATENCY = RoundTripProbe.check("etcd", "a linearizable read of the namespace");
    /** The catalogue, in the order findings come. */
    static final List<DoctorCheck> CHECKS = List.of(EtcdClusterFindings.VERSION, EtcdClusterFindings.MEMBERS, EtcdClusterFindings.LEADER,
            EtcdSessionTtlCheck.CHECK, EtcdAuthCheck.CHECK, EtcdClusterFindings.ALARMS, EtcdClusterFindings.HISTORY, LATENCY);
    /** The first call of a client also connects (and authenticates): a cold JVM needs this long, as for a lock client. */
    private static final Duration FIRST_CALL = Duration.ofSeconds(10);

    private EtcdDoctor() {}

    static List<Finding> diagnose(String target, OpenOptions options) {
        EtcdLockClient.Builder builder = EtcdBackendProvider.builder(target, options);
        EtcdConnection connection = builder.connection();
        String where = TargetUri.mask(target);
        Duration timeout = connection.operationTimeout();
        ByteSequence prefix = builder.keys().namespacePrefix();
        try (Client anonymous = connection.anonymous().connect(); Client application = connection.user() == null ? null : connection.connect()) {
            Probe withoutUser = Probe.read(anonymous, prefix, where);
            Probe withUser = application == null ? null : Probe.read(application, prefix, where);
            Client reader = application != null && withUser != null && withUser.authenticated() ? application : anonymous;
            List<Finding> findings = new ArrayList<>();
            Cluster cluster = EtcdClusterFindings.members(reader, timeout, where);
            findings.add(EtcdClusterFindings.version(cluster));
            findings.add(EtcdClusterFindings.members(cluster));
            findings.add(EtcdClusterFindings.leader(cluster));
            findings.add(EtcdSessionTtlCheck.judge(builder.requestedSessionTtl(), builder.leaseTimeSet(),
                    EtcdSessionTtlCheck.commandLines(cluster, timeout)));
            findings.add(EtcdAuthCheck.judge(withoutUser, withUser, connection.user(), prefix.toString(StandardCharsets.UTF_8)));
            Optional<String> metrics = EtcdClusterFindings.metrics(cluster, timeout); // read once: the alarms' quota, the history
            findings.add(EtcdClusterFindings.alarms(reader, cluster, metrics, timeout));
            findings.add(EtcdClusterFindings.history(metrics));
            findings.add(latency(reader, prefix, builder, timeout));
            return findings;
        }
    }

    private static Finding latency(Client reader, ByteSequence prefix, EtcdLockClient.Builder builder, Duration timeout) {
        Duration ttl = builder.requestedSessionTtl();
        Duration lease = builder.leaseTimeSet().filter(set -> set.compareTo(ttl) < 0).orElse(ttl);
        GetOption countOnly = GetOption.builder().isPrefix(true).withCountOnly(true).build();
        try {
            return RoundTripProbe.judge(LATENCY, () -> await(reader.getKVClient().get(prefix, countOnly), timeout), lease);
        } catch (CompletionException e) {
            return LATENCY.finding(Severity.UNKNOWN, "a read of the namespace failed: " + reason(e), "round trips cannot be measured "
                    + "without an answered read (no leader, or a user who may not read the namespace: see etcd.leader and etcd.auth)",
                    LATENCY.fix());
        }
    }

    /**
     * The answer to a count-only, serializable read of the namespace (it needs no leader), with or without a user.
     *
     * @param failure why it failed, or null if it was answered
     */
    record Probe(@Nullable Throwable failure) {
        /**
         * Reads; the first call of a client, so it waits long enough to connect.
         *
         * @throws BackendUnavailableException if no endpoint answers
         */
        static Probe read(Client client, ByteSequence prefix, String where) {
            GetOption countOnly = GetOption.builder().isPrefix(true).withCountOnly(true).withSerializable(true).build();
            try {
                await(client.getKVClient().get(prefix, countOnly), FIRST_CALL);
                return new Probe(null);
            } catch (CompletionException e) {
                if (unavailable(e)) {
                    throw new BackendUnavailableException("the etcd doctor could not reach " + where + ": " + reason(e), e);
                }
                return new Probe(e);
            }
        }

        /** Returns whether etcd's answer contains {@code words} (false if it answered). */
        boolean says(String words) {
            return failure != null && reason(failure).contains(words);
        }

        /** Returns whether the client is logged in or needs no login: it was answered, or refused for its role only. */
        boolean authenticated() {
            return failure == null || says("permission denied");
        }
    }

    /** Waits for a jetcd answer; a failure or no answer within {@code timeout} (and a second) is a CompletionException. */
    static <T> T await(CompletableFuture<T> future, Duration timeout) {
        try {
            return future.get(timeout.toMillis() + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CompletionException(e);
        } catch (ExecutionException e) {
            throw new CompletionException(e.getCause() == null ? e : e.getCause());
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new CompletionException(new TimeoutException("no answer within " + timeout.toMillis() + " ms"));
        }
    }

    /** Returns etcd's own words for a failure: the innermost gRPC status ({@code CODE: description}), or the failure. */
    static String reason(Throwable failure) {
        Status status = innermost(failure);
        if (status != null) {
            return status.getCode() + (status.getDescription() == null ? "" : ": " + status.getDescription());
        }
        Throwable cause = failure;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getMessage() == null ? cause.toString() : cause.getMessage();
    }

    /** Returns whether the failure says nobody answered (UNAVAILABLE, DEADLINE_EXCEEDED, no answer in time). */
    static boolean unavailable(Throwable failure) {
        Status status = innermost(failure);
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof TimeoutException) {
                return true;
            }
        }
        return status != null && (status.getCode() == Status.Code.UNAVAILABLE || status.getCode() == Status.Code.DEADLINE_EXCEEDED);
    }

    private static @Nullable Status innermost(Throwable failure) {
        Status found = null;
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof StatusRuntimeException runtime) {
                found = runtime.getStatus();
            } else if (cause instanceof StatusException checked) {
                found = checked.getStatus();
            }
        }
        return found;
    }

    /** Returns the text a member serves over HTTP at {@code path} of its client URL, or empty if it does not answer. */
    static Optional<String> read(URI clientUrl, String path, Duration timeout) {
        try {
            HttpURLConnection connection = (HttpURLConnection) clientUrl.resolve(path).toURL().openConnection();
            connection.setConnectTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            connection.setReadTimeout((int) Math.min(Integer.MAX_VALUE, timeout.toMillis()));
            try (InputStream in = connection.getInputStream()) {
                return Optional.of(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } finally {
                connection.disconnect();
            }
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
