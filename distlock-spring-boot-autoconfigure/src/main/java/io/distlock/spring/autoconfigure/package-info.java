/**
 * Spring Boot auto-configuration of a distlock {@code LockClient} from {@code distlock.*} properties.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
