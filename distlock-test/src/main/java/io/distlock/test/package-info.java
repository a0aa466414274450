/**
 * Test support for applications that lock with distlock: an in-memory lock server ({@link io.distlock.test.InMemoryLockServer})
 * whose clients run distlock's real engine, a JUnit 5 extension ({@link io.distlock.test.InMemoryLocks}) and a Spring Boot
 * test auto-configuration ({@link io.distlock.test.AutoConfigureInMemoryLocks}).
 */
@NullMarked
package io.distlock.test;

import org.jspecify.annotations.NullMarked;
