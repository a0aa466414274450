/**
 * The etcd backend: {@link io.distlock.etcd.EtcdLockClient}, a fair lock made of one key per waiter on
 * the client's session lease, ordered by create revision, on jetcd.
 */
@NullMarked
package io.distlock.etcd;

import org.jspecify.annotations.NullMarked;
