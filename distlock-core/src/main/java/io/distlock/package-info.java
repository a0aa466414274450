/**
 * The distlock API: {@link io.distlock.LockClient}, {@link io.distlock.DistributedLock},
 * {@link io.distlock.Lease} and {@link io.distlock.LockOptions}, the same on every backend.
 */
@NullMarked
package io.distlock;

import org.jspecify.annotations.NullMarked;
