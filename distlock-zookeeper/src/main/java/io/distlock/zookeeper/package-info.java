/**
 * The ZooKeeper backend: {@link io.distlock.zookeeper.ZooKeeperLockClient}, a fair lock made of an
 * ephemeral-sequential node per waiter, on the Curator framework. Each lock queues under
 * {@code /<namespace>/<lock name>} below the target's chroot; a namespace is one segment (no '/'), so no namespace's
 * node is another's lock queue, and namespaces nest through the chroot ({@code zk://host:2181/app}).
 */
@NullMarked
package io.distlock.zookeeper;

import org.jspecify.annotations.NullMarked;
