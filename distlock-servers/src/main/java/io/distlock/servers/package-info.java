/**
 * What every backend's test servers share, with no backend in it: fault injection through
 * {@link io.distlock.servers.BackendControl}, {@link io.distlock.servers.TcpProxy} and {@link io.distlock.servers.Signal};
 * server processes that die with this JVM ({@link io.distlock.servers.GuardedProcess}); free ports; child JVMs with a
 * READY/GO handshake ({@link io.distlock.servers.ChildJvm}, {@link io.distlock.servers.ParentJvm}); waiting on
 * conditions. Each backend's own servers live in its {@code distlock-*-testing} module.
 */
@NullMarked
package io.distlock.servers;

import org.jspecify.annotations.NullMarked;
