/**
 * The {@code distlock} command line: its entry point and the commands that need no subpackage.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.cli;

import org.jspecify.annotations.NullMarked;
