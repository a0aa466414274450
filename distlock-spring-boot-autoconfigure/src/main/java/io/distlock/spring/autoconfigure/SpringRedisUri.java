package io.distlock.spring.autoconfigure;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * The Redis the application already talks to, read from {@code spring.data.redis.*} as plain properties
 * (Boot 3.5's {@code RedisProperties} and Boot 4's {@code DataRedisProperties} are different classes), as
 * a distlock Redis URI.
 *
 * @param uri a redis://, rediss:// or redis-sentinel:// URI
 * @param cluster true if {@code spring.data.redis.cluster.nodes} is set (the URI is then its first node)
 */
record SpringRedisUri(String uri, boolean cluster) {
    private static final String PREFIX = "spring.data.redis.";

    static SpringRedisUri from(Environment environment) {
        Binder binder = Binder.get(environment);
        String url = string(binder, "url");
        boolean ssl = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false);
        String username = string(binder, "username");
        String password = string(binder, "password");
        int database = binder.bind(PREFIX + "database", Integer.class).orElse(0);
        List<String> clusterNodes = list(binder, "cluster.nodes");
        String sentinelMaster = string(binder, "sentinel.master");
        List<String> sentinelNodes = list(binder, "sentinel.nodes");
        if (!clusterNodes.isEmpty()) {
            return new SpringRedisUri(scheme(ssl) + "://" + credentials(username, password) + clusterNodes.get(0).trim(), true);
        }
        if (sentinelMaster != null && !sentinelNodes.isEmpty()) {
            String nodes = String.join(",", sentinelNodes.stream().map(String::trim).toList());
            return new SpringRedisUri(scheme(ssl) + "-sentinel://" + credentials(null, password) + nodes + databasePath(database)
                    + "#" + sentinelMaster, false);
        }
        if (url != null) {
            return new SpringRedisUri(url, false);
        }
        String host = binder.bind(PREFIX + "host", String.class).orElse("localhost");
        int port = binder.bind(PREFIX + "port", Integer.class).orElse(6379);
        return new SpringRedisUri(scheme(ssl) + "://" + credentials(username, password) + host + ":" + port + databasePath(database), false);
    }

    private static @Nullable String string(Binder binder, String name) {
        String value = binder.bind(PREFIX + name, String.class).orElse(null);
        return value == null || value.isBlank() ? null : value;
    }

    private static List<String> list(Binder binder, String name) {
        return binder.bind(PREFIX + name, Bindable.listOf(String.class)).orElse(List.of());
    }

    private static String scheme(boolean ssl) {
        return ssl ? "rediss" : "redis";
    }

    private static String credentials(@Nullable String username, @Nullable String password) {
        if (password == null) {
            return "";
        }
        return (username == null ? "" : encode(username) + ":") + encode(password) + "@";
    }

    private static String databasePath(int database) {
        return database == 0 ? "" : "/" + database;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
