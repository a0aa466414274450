/**
 * The SQL backend: {@link io.distlock.jdbc.JdbcLockClient}, one row per lock in a table on PostgreSQL,
 * MySQL 8 / MariaDB 10.6 or newer, or H2 2.x, with leases on the database's clock.
 */
@NullMarked
package io.distlock.jdbc;

import org.jspecify.annotations.NullMarked;
