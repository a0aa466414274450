/**
 * The safety checker: a recorded {@link io.distlock.checker.History} of lock operations under
 * faults, the {@link io.distlock.checker.Checker} that verifies it against the
 * {@link io.distlock.checker.Invariant}s, and an HTML timeline of the result.
 */
@NullMarked
package io.distlock.checker;

import org.jspecify.annotations.NullMarked;
