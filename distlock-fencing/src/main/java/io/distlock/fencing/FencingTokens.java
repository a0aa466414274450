package io.distlock.fencing;

/** The checks every guard makes on the tokens it is given. */
public final class FencingTokens {
    private FencingTokens() {
    }

    /**
     * Returns {@code token} if it is a fencing token: every backend's tokens are positive and grow with each grant of a
     * lock ({@code Lease.fencingToken()}); tokens are compared as signed 64-bit numbers, so any positive {@code long}
     * up to {@link Long#MAX_VALUE} compares correctly.
     *
     * @throws IllegalArgumentException if {@code token} is zero or negative
     */
    public static long requireValid(long token) {
        if (token <= 0) {
            throw new IllegalArgumentException("a fencing token is positive (Lease.fencingToken()); got " + token);
        }
        return token;
    }
}
