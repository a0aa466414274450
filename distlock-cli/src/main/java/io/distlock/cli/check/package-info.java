/**
 * {@code distlock check}: client processes lock under injected faults; the recorded history is checked.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.cli.check;

import org.jspecify.annotations.NullMarked;
