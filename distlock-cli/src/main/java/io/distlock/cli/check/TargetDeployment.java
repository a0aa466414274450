package io.distlock.cli.check;

import io.distlock.OpenOptions;
import io.distlock.checker.FaultKind;
import io.distlock.cli.options.Targets;
import io.distlock.servers.TcpProxy;
import io.distlock.servers.deployment.Deployment;
import io.distlock.servers.deployment.DeploymentSettings;
import io.distlock.servers.deployment.WorkerClient;
import io.distlock.spi.LockBackendProvider;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The user's own server as a deployment ({@code distlock check --target URI}): nothing is started and no server is
 * faulted. Faults stay on the client side: pauses and kills of the client processes, and, when the target is one
 * {@code host:port}, cut connections through a local proxy per client. The workers lock in a namespace of the run's own
 * ({@code distlock_check_<random>}), which {@link #close()} removes through the backend
 * ({@link LockBackendProvider#removeNamespace}) once the workers are gone; nothing outside it is touched.
 */
final class TargetDeployment extends Deployment {
    /*
     * Why only one host:port is proxied: a multi-host target (a ZooKeeper ensemble, Sentinels, a cluster seed) makes the
     * client find other servers by itself (the Sentinels name the master, the cluster its nodes), so a proxy in front of
     * the named hosts would not carry all its traffic and a cut would not partition it. Such targets run without
     * partitions rather than with a partition that is not one.
     */
    private static final Pattern SINGLE_HOST = Pattern.compile("^([a-z][a-z0-9+.:-]*://)([^/@?#]*@)?([^/?#,@]+):(\\d{1,5})([/?#].*)?$",
            Pattern.CASE_INSENSITIVE);

    private final LockBackendProvider provider;
    private final String target;
    private final String namespace;
    private final @Nullable SingleHost hostPort;
    private final List<TcpProxy> links = new ArrayList<>();
    private String cleanup = "";

    TargetDeployment(DeploymentSettings settings, LockBackendProvider provider, String target) {
        super(settings);
        this.provider = provider;
        this.target = target;
        this.namespace = "distlock_check_" + HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextInt());
        String lower = target.toLowerCase(Locale.ROOT);
        Matcher matcher = SINGLE_HOST.matcher(target);
        this.hostPort = matcher.matches() && !lower.contains("-sentinel:") && !lower.contains("-cluster:")
                ? new SingleHost(matcher.group(1) + (matcher.group(2) == null ? "" : matcher.group(2)), matcher.group(3),
                        Integer.parseInt(matcher.group(4)), matcher.group(5) == null ? "" : matcher.group(5))
                : null;
    }

    /**
     * A target that names one server: what comes before its host, the host and port, and what comes after.
     *
     * @param head the scheme and user info, e.g. {@code redis://user:secret@}
     * @param rest the path, query and fragment, or empty
     */
    private record SingleHost(String head, String host, int port, String rest) {
        /** Returns the target with {@code 127.0.0.1:port} (a proxy) in place of the server. */
        String through(int proxyPort) {
            return head + "127.0.0.1:" + proxyPort + rest;
        }
    }

    /** Returns the user's target. */
    String target() {
        return target;
    }

    /** Returns the namespace the run's locks live in, removed when the run ends. */
    String namespace() {
        return namespace;
    }

    /** Returns what {@link #close()} did with the namespace, for the user; empty before it ran. */
    String cleanup() {
        return cleanup;
    }

    @Override
    public List<FaultKind> faultKinds() {
        return hostPort != null ? List.of(FaultKind.PAUSE, FaultKind.KILL, FaultKind.PARTITION) : List.of(FaultKind.PAUSE, FaultKind.KILL);
    }

    @Override
    public String start(Set<FaultKind> faults) {
        if (hostPort != null && faults.contains(FaultKind.PARTITION)) {
            for (int slot = 0; slot < settings.processes(); slot++) {
                links.add(TcpProxy.to(hostPort.host(), hostPort.port()));
            }
        }
        return "your server " + Targets.redacted(target) + " (" + provider.id() + "), namespace " + namespace + " (removed afterwards)"
                + (links.isEmpty() ? "" : ", each client through a proxy of its own");
    }

    @Override
    public WorkerClient workerClient(int slot) {
        String through = target;
        if (slot < links.size()) {
            through = java.util.Objects.requireNonNull(hostPort).through(links.get(slot).port());
        }
        return new WorkerClient(through, namespace, DEFAULT_OPERATION_TIMEOUT);
    }

    @Override
    public Optional<TcpProxy> clientLink(int slot) {
        return slot < links.size() ? Optional.of(links.get(slot)) : Optional.empty();
    }

    /** Closes the proxies, then removes the run's namespace from the user's server (the workers are gone by now). */
    @Override
    public void close() {
        links.forEach(TcpProxy::close);
        try {
            long removed = provider.removeNamespace(target, OpenOptions.defaults().namespace(namespace));
            cleanup = "removed namespace " + namespace + " from " + Targets.redacted(target) + " (" + removed + " entries)";
        } catch (RuntimeException e) {
            cleanup = "FAILED to remove namespace " + namespace + " from " + Targets.redacted(target) + ": " + e.getMessage()
                    + "; it holds only this run's locks: remove them by hand";
        }
    }
}
