/**
 * The safety checker: a recorded {@link io.distlock.testkit.check.History} of lock operations under
 * faults, the {@link io.distlock.testkit.check.Checker} that verifies it against the
 * {@link io.distlock.testkit.check.Invariant}s, and an HTML timeline of the result.
 */
@NullMarked
package io.distlock.testkit.check;

import org.jspecify.annotations.NullMarked;
