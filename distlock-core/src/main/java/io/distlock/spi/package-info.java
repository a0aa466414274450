/**
 * The backend SPI: the few atomic storage operations a backend must provide, plus capability
 * interfaces for what only some backends have. Waiting, reentrancy and renewal live in the engine.
 */
@NullMarked
package io.distlock.spi;

import org.jspecify.annotations.NullMarked;
