/**
 * Real database servers on free ports for tests, the checker and the benchmarks: PostgreSQL and MariaDB processes from their Maven Central binaries, an H2 TCP server in this JVM.
 */
@NullMarked
package io.distlock.jdbc.testing;

import org.jspecify.annotations.NullMarked;
