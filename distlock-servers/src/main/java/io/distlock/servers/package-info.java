/**
 * Real servers on free loopback ports, for tests and the command line: {@code redis-server} processes
 * ({@link io.distlock.servers.RedisServer}) alone, as replica groups with Sentinels or as a cluster;
 * ZooKeeper servers and ensembles run in-process ({@link io.distlock.servers.ZooKeeperServer},
 * {@link io.distlock.servers.ZooKeeperEnsemble}); faults through {@link io.distlock.servers.BackendControl},
 * {@link io.distlock.servers.TcpProxy} and {@link io.distlock.servers.Signal}; and child JVMs with a
 * READY/GO handshake ({@link io.distlock.servers.ChildJvm}, {@link io.distlock.servers.ParentJvm}).
 */
@NullMarked
package io.distlock.servers;

import org.jspecify.annotations.NullMarked;
