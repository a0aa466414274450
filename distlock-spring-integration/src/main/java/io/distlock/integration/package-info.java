/** Spring Integration on distlock: {@link io.distlock.integration.DistlockLockRegistry}. */
@NullMarked
package io.distlock.integration;

import org.jspecify.annotations.NullMarked;
