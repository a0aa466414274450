package io.distlock.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * A target of the form {@code scheme://[user[:password]@]host:port[,host:port...][/path]}, as the providers of
 * multi-host backends take it (ZooKeeper, etcd, RedLock); {@link java.net.URI} does not parse host lists.
 *
 * @param scheme the scheme, lower case
 * @param user the user of the user info, or null
 * @param password the password of the user info, or null
 * @param hosts each {@code host:port}, at least one, in the order given
 * @param path what follows the hosts from its {@code /} on, or the empty string
 */
public record TargetUri(String scheme, @Nullable String user, @Nullable String password, List<String> hosts, String path) {

    /** Copies the hosts. */
    public TargetUri {
        hosts = List.copyOf(hosts);
    }

    /**
     * Parses {@code target}.
     *
     * @throws IllegalArgumentException if it is not {@code scheme://host:port[,...]} with a port on every host; the
     *     message shows the target with its password masked, and {@code form}, the form expected
     */
    public static TargetUri parse(String target, String form) {
        int separator = target == null ? -1 : target.indexOf("://");
        if (separator <= 0) {
            throw malformed(target, form, "no scheme://");
        }
        String rest = target.substring(separator + 3);
        int slash = rest.indexOf('/');
        String authority = slash < 0 ? rest : rest.substring(0, slash);
        int at = authority.lastIndexOf('@');
        String user = null;
        String password = null;
        if (at >= 0) {
            String userInfo = authority.substring(0, at);
            int colon = userInfo.indexOf(':');
            user = colon < 0 ? userInfo : userInfo.substring(0, colon);
            password = colon < 0 ? null : userInfo.substring(colon + 1);
        }
        List<String> hosts = new ArrayList<>();
        for (String host : authority.substring(at + 1).split(",", -1)) {
            String trimmed = host.trim();
            int colon = trimmed.lastIndexOf(':');
            if (colon <= 0 || colon == trimmed.length() - 1 || !trimmed.substring(colon + 1).chars().allMatch(Character::isDigit)) {
                throw malformed(target, form, trimmed.isEmpty() ? "a blank host" : "host '" + trimmed + "' has no port");
            }
            hosts.add(trimmed);
        }
        return new TargetUri(target.substring(0, separator).toLowerCase(Locale.ROOT), user, password, hosts,
                slash < 0 ? "" : rest.substring(slash));
    }

    /** Returns {@code target} with the password of its user info, or of a {@code password=} parameter, replaced by {@code ***}. */
    public static String mask(@Nullable String target) {
        return target == null ? "null" : target.replaceAll("(://[^/@:]*):[^/@]*@", "$1:***@").replaceAll("(?i)(password=)[^&;]*", "$1***");
    }

    private static IllegalArgumentException malformed(@Nullable String target, String form, String problem) {
        return new IllegalArgumentException("target '" + mask(target) + "' must look like " + form + ": " + problem);
    }
}
