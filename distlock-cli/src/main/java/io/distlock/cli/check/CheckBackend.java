package io.distlock.cli.check;

import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** The deployments {@code distlock check} can build and fault. */
enum CheckBackend {
    /** One redis-server, a replica for promotion, one proxy per client. */
    REDIS("redis", List.of("pause", "kill", "partition", "restart", "promote")),
    /** A master, two replicas and three Sentinels; clients find the master through Sentinel. */
    SENTINEL("sentinel", List.of("pause", "kill", "failover")),
    /** A Redis Cluster of three masters and three replicas; clients in cluster mode. */
    CLUSTER("cluster", List.of("pause", "kill", "shard-failover")),
    /** Five independent masters with RedLock. */
    REDLOCK("redlock", List.of("pause", "kill", "node-restart", "nodes-down")),
    /** A three-member in-process ZooKeeper ensemble. */
    ZOOKEEPER("zookeeper", List.of("pause", "kill", "expire", "member"));

    private final String id;
    private final List<String> faults;

    CheckBackend(String id, List<String> faults) {
        this.id = id;
        this.faults = faults;
    }

    String id() {
        return id;
    }

    /** The fault kinds this deployment supports, in the order of the first round. */
    List<String> faults() {
        return faults;
    }

    static CheckBackend fromId(String id) {
        for (CheckBackend backend : values()) {
            if (backend.id.equals(id)) {
                return backend;
            }
        }
        throw new IllegalArgumentException("--backend must be one of "
                + Arrays.stream(values()).map(CheckBackend::id).collect(Collectors.joining(", ")) + ", was '" + id + "'");
    }
}
