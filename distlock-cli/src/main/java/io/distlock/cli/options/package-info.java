/**
 * Options several commands of the command line share.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.cli.options;

import org.jspecify.annotations.NullMarked;
