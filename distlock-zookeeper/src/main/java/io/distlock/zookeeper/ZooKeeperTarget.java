package io.distlock.zookeeper;

import io.distlock.spi.TargetParameters;
import io.distlock.spi.TargetUri;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * A {@code zk://} target as the provider reads it, for {@code open} and the doctor alike: the connect string with its
 * chroot, the digest credentials and the timeouts the client asks for.
 *
 * @param connectString {@code host:port[,host:port...][/chroot]}
 * @param hosts each {@code host:port} of the target
 * @param digest {@code user:password}, or null without user info
 * @param sessionTimeout the session timeout to ask for: {@code ?sessionTimeout=}, else the client's default
 * @param connectionTimeout how long connecting may take: {@code ?connectionTimeout=}, else the client's default
 */
record ZooKeeperTarget(String connectString, List<String> hosts, @Nullable String digest, Duration sessionTimeout,
        Duration connectionTimeout) {
    static final String FORM = "zk://[user:password@]host:port[,host:port...][/chroot][?sessionTimeout=4s&connectionTimeout=2s]";

    /**
     * Parses {@code target}.
     *
     * @throws IllegalArgumentException if it is malformed, names a user without a password or has an unknown parameter
     */
    static ZooKeeperTarget parse(String target) {
        TargetParameters parameters = TargetParameters.takeAll(target, Set.of("sessionTimeout", "connectionTimeout"), FORM);
        TargetUri parsed = TargetUri.parse(parameters.target(), FORM);
        String digest = null;
        if (parsed.user() != null) {
            if (parsed.password() == null) {
                throw new IllegalArgumentException("target '" + TargetUri.mask(target) + "' names a user without a password: digest needs both");
            }
            digest = parsed.user() + ":" + parsed.password();
        }
        return new ZooKeeperTarget(String.join(",", parsed.hosts()) + parsed.path(), parsed.hosts(), digest,
                parameters.duration("sessionTimeout").orElse(ZooKeeperLockClient.DEFAULT_SESSION_TIMEOUT),
                parameters.duration("connectionTimeout").orElse(ZooKeeperLockClient.DEFAULT_TIMEOUT));
    }
}
