/**
 * Fencing enforced at the resource. A lease can end while its holder is paused (a GC pause, a stalled VM), and the
 * holder then writes as if it still held the lock; no lock service can stop that write, only the resource can refuse
 * it. The guards here make a write conditional on the holder's fencing token ({@code Lease.fencingToken()}), atomically
 * with the write, and refuse a token lower than one the resource has seen with a {@link StaleTokenException}.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.fencing;

import org.jspecify.annotations.NullMarked;
