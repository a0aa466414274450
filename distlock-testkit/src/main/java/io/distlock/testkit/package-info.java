/**
 * Test support: real servers on free ports ({@link io.distlock.testkit.RedisServer}) and the
 * contract test tiers every backend runs ({@link io.distlock.testkit.LockContract},
 * {@link io.distlock.testkit.LeaseLockContract}).
 */
@NullMarked
package io.distlock.testkit;

import org.jspecify.annotations.NullMarked;
