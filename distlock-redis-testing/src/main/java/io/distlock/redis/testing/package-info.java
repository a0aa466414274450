/**
 * Real redis-server processes on free ports for tests, the checker and the benchmarks: alone, as replica groups with Sentinels, as a cluster, or as independent RedLock nodes; a RESP client for raw state; JUnit extensions per deployment.
 */
@NullMarked
package io.distlock.redis.testing;

import org.jspecify.annotations.NullMarked;
