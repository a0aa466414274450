/**
 * Spring support for distlock: {@code @WithLock} and the interceptor that holds a lock around a method.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.spring;

import org.jspecify.annotations.NullMarked;
