/**
 * Fencing guards for SQL databases (PostgreSQL, MySQL/MariaDB, H2), on plain JDBC connections, so that they work
 * with {@code DataSource}s, Spring's {@code JdbcTemplate} ({@code ConnectionCallback}) and transactions alike:
 * {@link io.distlock.fencing.sql.FencedColumn} for a token column on the application's own row, and
 * {@link io.distlock.fencing.sql.FenceTable} for writes that span several rows.
 *
 * <p>Null-marked: types are non-null unless annotated {@code @Nullable}, which NullAway checks in the build.
 */
@NullMarked
package io.distlock.fencing.sql;

import org.jspecify.annotations.NullMarked;
