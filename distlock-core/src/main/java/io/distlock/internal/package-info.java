/** The engine shared by all backends. Not API: not exported by the module, may change at any time. */
@NullMarked
package io.distlock.internal;

import org.jspecify.annotations.NullMarked;
