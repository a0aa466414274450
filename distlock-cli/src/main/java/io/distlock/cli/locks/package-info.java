/**
 * {@code distlock locks}: list, show and force-unlock the locks stored on a server.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.cli.locks;

import org.jspecify.annotations.NullMarked;
