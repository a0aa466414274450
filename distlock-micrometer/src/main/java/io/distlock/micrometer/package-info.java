/**
 * Micrometer metrics for distlock: a {@code LockListener} that counts and times acquisitions, releases and lost leases.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.micrometer;

import org.jspecify.annotations.NullMarked;
