/**
 * The ZooKeeper backend: {@link io.distlock.zookeeper.ZooKeeperLockClient}, a fair lock made of an
 * ephemeral-sequential node per waiter, on the Curator framework.
 */
@NullMarked
package io.distlock.zookeeper;

import org.jspecify.annotations.NullMarked;
