/**
 * Fencing guards for Redis (standalone, Sentinel, Cluster) on Lettuce: one script checks the writer's token against
 * the highest the key has seen and applies the write, atomically.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.fencing.redis;

import org.jspecify.annotations.NullMarked;
