/**
 * {@code distlock demo}: the stock-deduction race of textbook locks against distlock.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.cli.demo;

import org.jspecify.annotations.NullMarked;
