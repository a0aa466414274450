package io.distlock.redis;

import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.LockClient;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.TargetParameters;
import io.distlock.spi.TargetUri;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * RedLock in the registry: a majority of independent Redis masters, named in one target,
 * {@code redlock://[user:password@]host1:port1,host2:port2,host3:port3[/db]} ({@code redlocks://} for TLS on every
 * node). The namespace is the key prefix on every node.
 */
public final class RedLockBackendProvider implements LockBackendProvider {
    private static final String FORM = "redlock://[user:password@]host1:port1,host2:port2,host3:port3[/db][?nodeTimeout=50ms]";


    /** For {@link java.util.ServiceLoader}. */
    public RedLockBackendProvider() {}

    @Override
    public String id() {
        return "redlock";
    }

    @Override
    public String description() {
        return "RedLock: a majority of independent Redis masters (Lettuce); plain locks";
    }

    @Override
    public List<String> schemes() {
        return List.of("redlock", "redlocks");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("redlock://host1:6379,host2:6379,host3:6379");
    }


    @Override
    public Optional<List<Finding>> diagnose(String target, OpenOptions options) {
        TargetParameters parameters = TargetParameters.takeAll(target, Set.of("nodeTimeout"), FORM);
        return Optional.of(RedLockDoctor.diagnose(nodes(parameters.target()), options));
    }

    @Override
    public List<DoctorCheck> doctorChecks() {
        return RedLockDoctor.CHECKS;
    }

    @Override
    public LockClient open(String target, OpenOptions options) {
        TargetParameters parameters = TargetParameters.takeAll(target, Set.of("nodeTimeout"), FORM);
        RedLockClient.Builder builder = RedLockClient.builder().uris(nodes(parameters.target()));
        parameters.duration("nodeTimeout").ifPresent(builder::nodeTimeout);
        options.namespace().ifPresent(builder::keyPrefix);
        return builder.apply(options).build();
    }

    /** Returns one {@code redis://} (or {@code rediss://}) URI per host of a {@code redlock://} target. */
    static List<String> nodes(String target) {
        TargetUri parsed = TargetUri.parse(target, FORM);
        String scheme = parsed.scheme().equals("redlocks") ? "rediss://" : "redis://";
        String userInfo = parsed.user() == null ? "" : parsed.user() + (parsed.password() == null ? "" : ":" + parsed.password()) + "@";
        List<String> nodes = new ArrayList<>();
        for (String host : parsed.hosts()) {
            nodes.add(scheme + userInfo + host + parsed.path());
        }
        return nodes;
    }
}
