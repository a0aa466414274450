/** ShedLock on distlock: {@link io.distlock.shedlock.DistlockLockProvider}. */
@NullMarked
package io.distlock.shedlock;

import org.jspecify.annotations.NullMarked;
