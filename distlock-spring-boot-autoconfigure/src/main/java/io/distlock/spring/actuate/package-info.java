/**
 * The Actuator side of the starter: the locks endpoint and the health indicator.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.spring.actuate;

import org.jspecify.annotations.NullMarked;
