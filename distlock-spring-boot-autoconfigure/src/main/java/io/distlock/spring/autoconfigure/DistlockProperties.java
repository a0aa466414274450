package io.distlock.spring.autoconfigure;

import io.distlock.spring.WithLockAdvisor;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * {@code distlock.*}: which backend the auto-configured {@code LockClient} uses, where it is, and the
 * defaults of {@code @WithLock}.
 */
@ConfigurationProperties(prefix = "distlock")
public class DistlockProperties {
    /** Whether to auto-configure a LockClient (@WithLock still works with a LockClient bean of the application's). */
    private boolean enabled = true;

    /**
     * The backend, by the id of its provider (redis, redlock, zookeeper, etcd, jdbc: 'distlock backends' lists those on
     * the classpath). Default: the backend of distlock.target; else the first of redis, zookeeper and jdbc whose module
     * is on the classpath.
     */
    private @Nullable String backend;

    /**
     * Where the locks live, as a target URI of the backend registry (redis://, redis-sentinel://, redis-cluster://,
     * redlock://, zk://, etcd://, jdbc:postgresql://, jdbc:mariadb://, jdbc:h2:...), with backend settings as URI
     * parameters. Opens any backend on the classpath; excludes distlock.redis.uri, distlock.zookeeper.connect-string and
     * distlock.jdbc.url. Default: none (the backend's own properties, the application's spring.data.redis.* or DataSource).
     */
    private @Nullable String target;

    /** With distlock.target: where on the server the locks live (Redis key prefix, ZooKeeper or etcd path, SQL table). Default: the backend's. */
    private @Nullable String namespace;

    /** Lease of each lock unless @WithLock says otherwise; renewed while held. Default 30 s (ZooKeeper: the session timeout). */
    private @Nullable Duration leaseTime;

    /**
     * How many times in a row a lock may pass from one thread of this application to another waiting for it without a
     * round trip to the server (lock cohorting; on Redis and SQL, elsewhere it changes nothing). Unset: the library's
     * default, 16; 0 sends every acquire and release to the server. See docs/guarantees.md for what a handoff gives up.
     */
    private @Nullable Integer localHandoffs;

    /** How long @WithLock waits for a lock unless it says otherwise. 0 tries once. */
    private Duration waitTime = Duration.ZERO;

    /** How long one backend operation (acquire, renew, release) may take. Default 3 s. */
    private @Nullable Duration operationTimeout;

    /** Order of the @WithLock advice among other advice; the default runs it outside @Transactional and @Cacheable. */
    private int adviceOrder = WithLockAdvisor.DEFAULT_ORDER;

    private final Redis redis = new Redis();

    private final Zookeeper zookeeper = new Zookeeper();

    private final Jdbc jdbc = new Jdbc();

    private final Doctor doctor = new Doctor();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public @Nullable String getBackend() {
        return backend;
    }

    public void setBackend(@Nullable String backend) {
        this.backend = text(backend, "distlock.backend", "a backend id (redis, zookeeper, etcd, jdbc, redlock: 'distlock backends' lists those on the classpath)");
    }

    public @Nullable String getTarget() {
        return target;
    }

    public void setTarget(@Nullable String target) {
        this.target = text(target, "distlock.target", "a target URI such as redis://host:6379");
    }

    public @Nullable String getNamespace() {
        return namespace;
    }

    public void setNamespace(@Nullable String namespace) {
        this.namespace = text(namespace, "distlock.namespace", "a namespace");
    }

    public @Nullable Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(@Nullable Duration leaseTime) {
        if (leaseTime != null && leaseTime.compareTo(io.distlock.LockOptions.MIN_LEASE_TIME) < 0) {
            throw new IllegalArgumentException("distlock.lease-time must be at least " + io.distlock.LockOptions.MIN_LEASE_TIME.toMillis() + " ms, was " + leaseTime);
        }
        this.leaseTime = leaseTime;
    }

    public @Nullable Integer getLocalHandoffs() {
        return localHandoffs;
    }

    public void setLocalHandoffs(@Nullable Integer localHandoffs) {
        if (localHandoffs != null && (localHandoffs < 0 || localHandoffs > io.distlock.LockOptions.MAX_LOCAL_HANDOFFS)) {
            throw new IllegalArgumentException("distlock.local-handoffs must be between 0 and " + io.distlock.LockOptions.MAX_LOCAL_HANDOFFS
                    + ", was " + localHandoffs);
        }
        this.localHandoffs = localHandoffs;
    }

    public Duration getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = notNegative(waitTime, "distlock.wait-time");
    }

    public @Nullable Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(@Nullable Duration operationTimeout) {
        if (operationTimeout != null && (operationTimeout.isNegative() || operationTimeout.isZero())) {
            throw new IllegalArgumentException("distlock.operation-timeout must be positive, was " + operationTimeout);
        }
        this.operationTimeout = operationTimeout;
    }

    public int getAdviceOrder() {
        return adviceOrder;
    }

    public void setAdviceOrder(int adviceOrder) {
        this.adviceOrder = adviceOrder;
    }

    public Redis getRedis() {
        return redis;
    }

    public Zookeeper getZookeeper() {
        return zookeeper;
    }

    public Jdbc getJdbc() {
        return jdbc;
    }

    public Doctor getDoctor() {
        return doctor;
    }

    /**
     * Returns a text value, or throws if it is blank. Spring Boot's binder reports the failure when the application
     * starts; the message names the whole property, as the binder names only its last part.
     */
    static @Nullable String text(@Nullable String value, String property, String expected) {
        if (value != null && value.isBlank()) {
            throw new IllegalArgumentException(property + " must not be blank: give " + expected);
        }
        return value;
    }

    /** Returns a duration that is zero or more, or throws. */
    static Duration notNegative(Duration duration, String property) {
        if (duration == null || duration.isNegative()) {
            throw new IllegalArgumentException(property + " must be zero or more, was " + duration);
        }
        return duration;
    }

    /** {@code distlock.doctor.*}: the doctor's findings about the lock server in the distlock health indicator. */
    public static class Doctor {
        /**
         * Whether the distlock health indicator shows what distlock doctor finds on the lock server (eviction, persistence,
         * replication, round trips against the lease...), and reports DOWN when a finding is unsafe. Risky findings are
         * details only.
         */
        private boolean enabled;

        /** How long the doctor's findings are kept before a health check examines the server again. */
        private Duration interval = Duration.ofMinutes(10);

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public Duration getInterval() {
            return interval;
        }

        public void setInterval(Duration interval) {
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("distlock.doctor.interval must be positive, was " + interval);
            }
            this.interval = interval;
        }
    }

    /** {@code distlock.redis.*}. */
    public static class Redis {
        /**
         * Redis URI: redis://[user:password@]host:port[/db], rediss://..., or redis-sentinel://host:port[,host:port]#master.
         * Default: built from the application's spring.data.redis.* (url, host, port, username, password, database,
         * ssl, sentinel, cluster).
         */
        private @Nullable String uri;

        /** Treat the URI as a seed node of a Redis Cluster. Default: true when spring.data.redis.cluster.nodes is set. */
        private @Nullable Boolean cluster;

        /** Prefix of every lock key. */
        private String keyPrefix = "distlock:";

        /** Replicas that must acknowledge each lock write (Redis WAIT); 0 for none. */
        private int minReplicas;

        /** Connection name shown by CLIENT LIST. Default: spring.application.name, when set. */
        private @Nullable String clientName;

        public @Nullable String getUri() {
            return uri;
        }

        public void setUri(@Nullable String uri) {
            this.uri = uri;
        }

        public @Nullable Boolean getCluster() {
            return cluster;
        }

        public void setCluster(@Nullable Boolean cluster) {
            this.cluster = cluster;
        }

        public String getKeyPrefix() {
            return keyPrefix;
        }

        public void setKeyPrefix(String keyPrefix) {
            this.keyPrefix = java.util.Objects.requireNonNull(text(keyPrefix, "distlock.redis.key-prefix", "a key prefix such as distlock:"));
        }

        public int getMinReplicas() {
            return minReplicas;
        }

        public void setMinReplicas(int minReplicas) {
            if (minReplicas < 0) {
                throw new IllegalArgumentException("distlock.redis.min-replicas must be 0 (no replica acknowledgement) or more, was " + minReplicas);
            }
            this.minReplicas = minReplicas;
        }

        public @Nullable String getClientName() {
            return clientName;
        }

        public void setClientName(@Nullable String clientName) {
            this.clientName = clientName;
        }
    }

    /** {@code distlock.zookeeper.*}. */
    public static class Zookeeper {
        /** The ensemble, host:port[,host:port...]. */
        private @Nullable String connectString;

        /** Root node of all locks. */
        private String namespace = "distlock";

        /** Session timeout to ask for: how long a crashed holder's lock survives it. */
        private Duration sessionTimeout = Duration.ofSeconds(15);

        public @Nullable String getConnectString() {
            return connectString;
        }

        public void setConnectString(@Nullable String connectString) {
            this.connectString = connectString;
        }

        public String getNamespace() {
            return namespace;
        }

        public void setNamespace(String namespace) {
            text(namespace, "distlock.zookeeper.namespace", "one path segment such as distlock");
            if (!namespace.matches("[A-Za-z0-9_-]+")) {
                throw new IllegalArgumentException("distlock.zookeeper.namespace must be one path segment of letters, digits, '_' and '-', was '" + namespace + "'");
            }
            this.namespace = namespace;
        }

        public Duration getSessionTimeout() {
            return sessionTimeout;
        }

        public void setSessionTimeout(Duration sessionTimeout) {
            if (sessionTimeout == null || sessionTimeout.isNegative() || sessionTimeout.isZero()) {
                throw new IllegalArgumentException("distlock.zookeeper.session-timeout must be positive, was " + sessionTimeout);
            }
            this.sessionTimeout = sessionTimeout;
        }
    }

    /** {@code distlock.jdbc.*}. */
    public static class Jdbc {
        /**
         * JDBC URL of the database that holds the lock table, e.g. jdbc:postgresql://db/app?user=app. Default: the
         * application's DataSource bean.
         */
        private @Nullable String url;

        /** User for distlock.jdbc.url (default: none, or the one in the URL). */
        private @Nullable String username;

        /** Password for distlock.jdbc.url. */
        private @Nullable String password;

        /** The lock table, optionally schema-qualified. */
        private String table = "distlock_locks";

        /** Create the lock table at startup if it is missing (the user then needs CREATE); with false it must exist. */
        private boolean createTable = true;

        public @Nullable String getUrl() {
            return url;
        }

        public void setUrl(@Nullable String url) {
            this.url = url;
        }

        public @Nullable String getUsername() {
            return username;
        }

        public void setUsername(@Nullable String username) {
            this.username = username;
        }

        public @Nullable String getPassword() {
            return password;
        }

        public void setPassword(@Nullable String password) {
            this.password = password;
        }

        public String getTable() {
            return table;
        }

        public void setTable(String table) {
            this.table = java.util.Objects.requireNonNull(text(table, "distlock.jdbc.table", "a table name such as distlock_locks"));
        }

        public boolean isCreateTable() {
            return createTable;
        }

        public void setCreateTable(boolean createTable) {
            this.createTable = createTable;
        }
    }
}
