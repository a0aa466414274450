/**
 * The contract test tiers every backend runs ({@link io.distlock.testkit.LockContract},
 * {@link io.distlock.testkit.LeaseLockContract}) on real servers from {@code distlock-servers}.
 */
@NullMarked
package io.distlock.testkit;

import org.jspecify.annotations.NullMarked;
