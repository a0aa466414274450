package io.distlock.zookeeper;

import io.distlock.LockClient;
import io.distlock.LockKind;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import io.distlock.spi.TargetParameters;
import io.distlock.spi.TargetUri;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * ZooKeeper in the registry: {@code zk://[user:password@]host:port[,host:port...][/chroot]}. The user info
 * authenticates with digest; the path is ZooKeeper's chroot; the namespace is the root node of the locks under it.
 */
public final class ZooKeeperBackendProvider implements LockBackendProvider {
    private static final String FORM = "zk://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=4s&connectionTimeout=2s]";

    /** For {@link java.util.ServiceLoader}. */
    public ZooKeeperBackendProvider() {}

    @Override
    public String id() {
        return "zookeeper";
    }

    @Override
    public String description() {
        return "ZooKeeper ensemble (Curator framework, distlock's own queue recipe); locks under a namespace node";
    }

    @Override
    public List<String> schemes() {
        return List.of("zk", "zookeeper");
    }

    @Override
    public List<String> exampleTargets() {
        return List.of("zk://host:2181[,host:2181...]", "zk://user:password@host:2181/chroot", "zk://host:2181?sessionTimeout=4s");
    }

    @Override
    public Set<LockKind> kinds() {
        return EnumSet.allOf(LockKind.class);
    }

    @Override
    public boolean hasInspector() {
        return true;
    }

    @Override
    public LockClient open(String target, OpenOptions options) {
        TargetParameters parameters = TargetParameters.takeAll(target, Set.of("sessionTimeout", "connectionTimeout"), FORM);
        TargetUri parsed = TargetUri.parse(parameters.target(), FORM);
        ZooKeeperLockClient.Builder builder = ZooKeeperLockClient.builder().connectString(String.join(",", parsed.hosts()) + parsed.path());
        if (parsed.user() != null) {
            if (parsed.password() == null) {
                throw new IllegalArgumentException("target '" + TargetUri.mask(target) + "' names a user without a password: digest needs both");
            }
            builder.digest(parsed.user() + ":" + parsed.password());
        }
        parameters.duration("sessionTimeout").ifPresent(builder::sessionTimeout);
        parameters.duration("connectionTimeout").ifPresent(builder::connectionTimeout);
        options.namespace().ifPresent(builder::namespace);
        return builder.apply(options).build();
    }
}
