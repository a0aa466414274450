/**
 * {@code distlock bench}: distlock side by side with other lock libraries, with a report.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.cli.bench;

import org.jspecify.annotations.NullMarked;
