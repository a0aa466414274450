/**
 * The Redis backend: {@link io.distlock.redis.RedisLockClient}, on Lettuce. Standalone Redis 5.0 or
 * newer (scripts call TIME before writing, which needs effect replication).
 */
@NullMarked
package io.distlock.redis;

import org.jspecify.annotations.NullMarked;
