/**
 * etcd server processes (Debian's etcd-server, or DISTLOCK_ETCD) as one- or three-member clusters on free ports for tests, the checker and the benchmarks; a JUnit extension.
 */
@NullMarked
package io.distlock.etcd.testing;

import org.jspecify.annotations.NullMarked;
