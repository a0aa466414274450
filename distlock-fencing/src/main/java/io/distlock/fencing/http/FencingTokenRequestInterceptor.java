package io.distlock.fencing.http;

import io.distlock.fencing.FencingContext;
import java.io.IOException;
import java.util.OptionalLong;
import org.springframework.http.HttpRequest;
import org.springframework.http.client.ClientHttpRequestExecution;
import org.springframework.http.client.ClientHttpRequestInterceptor;
import org.springframework.http.client.ClientHttpResponse;

/**
 * For Spring's {@code RestClient} and {@code RestTemplate}: sends this thread's current fencing token ({@link
 * FencingContext}: inside a {@code @WithLock} method, its lease's) in the {@value FencingHeader#NAME} header.
 *
 * <pre>{@code
 * RestClient client = RestClient.builder().requestInterceptor(new FencingTokenRequestInterceptor()).build();
 * }</pre>
 *
 * <p>A request made outside a lock goes without the header (a fenced server answers it 428), and one that already has
 * the header keeps it. Spring Web is an optional dependency of this module: the application's.
 */
public final class FencingTokenRequestInterceptor implements ClientHttpRequestInterceptor {
    @Override
    public ClientHttpResponse intercept(HttpRequest request, byte[] body, ClientHttpRequestExecution execution) throws IOException {
        OptionalLong token = FencingContext.findCurrentToken();
        if (token.isPresent() && request.getHeaders().getFirst(FencingHeader.NAME) == null) {
            request.getHeaders().set(FencingHeader.NAME, FencingHeader.format(token.getAsLong()));
        }
        return execution.execute(request, body);
    }
}
