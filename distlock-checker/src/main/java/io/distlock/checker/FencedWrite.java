package io.distlock.checker;

/**
 * A write the fenced store accepted, in the order it accepted them.
 *
 * @param token the writer's fencing token
 * @param process the writing process
 * @param value the value written
 */
public record FencedWrite(long token, int process, long value) {}
