/**
 * The contract test tiers every backend runs ({@link io.distlock.testkit.LockContract},
 * {@link io.distlock.testkit.LeaseLockContract}), and JUnit 5 extensions that start a deployment of
 * real servers for a test class (their base: each backend's extensions are in its {@code distlock-*-testing} module).
 */
@NullMarked
package io.distlock.testkit;

import org.jspecify.annotations.NullMarked;
