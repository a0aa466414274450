/**
 * In-process ZooKeeper servers and ensembles on free ports for tests, the checker and the benchmarks, with their faults; a JUnit extension.
 */
@NullMarked
package io.distlock.zookeeper.testing;

import org.jspecify.annotations.NullMarked;
