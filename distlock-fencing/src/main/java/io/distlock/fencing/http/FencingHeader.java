package io.distlock.fencing.http;

import io.distlock.fencing.FencingTokens;

/** The HTTP header that carries a fencing token, and the problem type of a request refused for a stale one. */
public final class FencingHeader {
    /** The request header: the writer's fencing token as a decimal number, such as {@code Fencing-Token: 42}. */
    public static final String NAME = "Fencing-Token";

    /** The {@code type} of the RFC 9457 problem a server answers a stale token with (status 409). */
    public static final String STALE_TOKEN_PROBLEM = "urn:distlock:problem:stale-fencing-token";

    /** The media type of RFC 9457 problem bodies. */
    public static final String PROBLEM_JSON = "application/problem+json";

    private FencingHeader() {}

    /** Returns the header value for {@code token}. @throws IllegalArgumentException if it is not positive */
    public static String format(long token) {
        return Long.toString(FencingTokens.requireValid(token));
    }

    /**
     * Returns the token a header value carries.
     *
     * @throws IllegalArgumentException if it is not a positive decimal {@code long} (the message quotes at most 40
     *     characters of it)
     */
    public static long parse(String value) {
        String trimmed = value.trim();
        if (trimmed.isEmpty() || trimmed.length() > 19 || !trimmed.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException(NAME + " must be a positive decimal number, was '" + abbreviated(value) + "'");
        }
        long token;
        try {
            token = Long.parseLong(trimmed);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(NAME + " is larger than the largest token (" + Long.MAX_VALUE + "): '" + trimmed + "'");
        }
        if (token <= 0) {
            throw new IllegalArgumentException(NAME + " must be positive, was " + token);
        }
        return token;
    }

    static String abbreviated(String value) {
        return value.length() <= 40 ? value : value.substring(0, 40) + "...";
    }
}
