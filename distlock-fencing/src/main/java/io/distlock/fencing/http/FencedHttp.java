package io.distlock.fencing.http;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.StaleTokenException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Fencing for {@code java.net.http}: puts the token in the request's {@value FencingHeader#NAME} header, and turns a
 * server's stale-token answer (409 with the {@link FencingHeader#STALE_TOKEN_PROBLEM} problem) into a
 * {@link StaleTokenException}.
 *
 * <pre>{@code
 * HttpRequest request = FencedHttp.fence(HttpRequest.newBuilder(uri).PUT(body), lease.fencingToken()).build();
 * FencedHttp.requireNotStale(client.send(request, BodyHandlers.ofString()));   // StaleTokenException if refused
 * }</pre>
 */
public final class FencedHttp {
    private static final Pattern PRESENTED = Pattern.compile("\"presentedToken\"\\s*:\\s*(\\d+)");
    private static final Pattern HIGHEST = Pattern.compile("\"highestToken\"\\s*:\\s*(\\d+)");
    private static final Pattern RESOURCE = Pattern.compile("\"resource\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");

    private FencedHttp() {}

    /** Sets the {@value FencingHeader#NAME} header of {@code request} to {@code token}; returns the builder. */
    public static HttpRequest.Builder fence(HttpRequest.Builder request, long token) {
        return request.setHeader(FencingHeader.NAME, FencingHeader.format(token));
    }

    /**
     * Sets the {@value FencingHeader#NAME} header to this thread's current token ({@link FencingContext}: inside a
     * Spring {@code @WithLock} method, its lease's).
     *
     * @throws IllegalStateException if this thread works under no lock
     */
    public static HttpRequest.Builder fence(HttpRequest.Builder request) {
        return fence(request, FencingContext.currentToken());
    }

    /**
     * Returns {@code response}, unless it is a server's refusal of a stale token.
     *
     * @throws StaleTokenException if it is (status 409 with a {@link FencingHeader#STALE_TOKEN_PROBLEM} body): the
     *     request was not carried out
     */
    public static <T> HttpResponse<T> requireNotStale(HttpResponse<T> response) {
        if (response.statusCode() == 409 && response.body() instanceof String body) {
            staleToken(body).ifPresent(stale -> {
                throw stale;
            });
        }
        return response;
    }

    /** Returns the refusal a problem body describes, if it is a stale-token problem. */
    public static Optional<StaleTokenException> staleToken(String problemBody) {
        if (!problemBody.contains(FencingHeader.STALE_TOKEN_PROBLEM)) {
            return Optional.empty();
        }
        Matcher presented = PRESENTED.matcher(problemBody);
        Matcher highest = HIGHEST.matcher(problemBody);
        Matcher resource = RESOURCE.matcher(problemBody);
        if (!presented.find() || !highest.find()) {
            return Optional.empty();
        }
        String name = resource.find() ? resource.group(1).replace("\\\"", "\"").replace("\\\\", "\\") : "?";
        return Optional.of(new StaleTokenException("HTTP resource '" + name + "'", Long.parseLong(presented.group(1)),
                Long.parseLong(highest.group(1))));
    }
}
