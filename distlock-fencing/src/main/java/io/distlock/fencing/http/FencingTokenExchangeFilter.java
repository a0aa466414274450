package io.distlock.fencing.http;

import io.distlock.fencing.FencingContext;
import java.util.OptionalLong;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * For Spring's {@code WebClient}: sends a fencing token in the {@value FencingHeader#NAME} header, the one in the
 * subscriber's Reactor context under {@link #CONTEXT_KEY} (a {@code Long}; a {@code Mono} or {@code Flux} returned by a
 * {@code @WithLock} method carries its token there) if any, else the one current on the thread that subscribes
 * ({@link FencingContext}: a {@code @WithLock} method that calls {@code block()}).
 *
 * <pre>{@code
 * WebClient client = WebClient.builder().filter(new FencingTokenExchangeFilter()).build();
 * }</pre>
 *
 * <p>A request with neither goes without the header (a fenced server answers it 428). Spring WebFlux is an optional
 * dependency of this module: the application's.
 */
public final class FencingTokenExchangeFilter implements ExchangeFilterFunction {
    /** The Reactor context key of the token to send, a {@code Long}: {@link FencingContext#REACTOR_CONTEXT_KEY}. */
    public static final String CONTEXT_KEY = FencingContext.REACTOR_CONTEXT_KEY;

    @Override
    public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
        OptionalLong onThread = FencingContext.findCurrentToken();
        return Mono.deferContextual(context -> {
            Long inContext = context.getOrDefault(CONTEXT_KEY, null);
            OptionalLong token = inContext != null ? OptionalLong.of(inContext) : onThread;
            if (token.isEmpty() || request.headers().getFirst(FencingHeader.NAME) != null) {
                return next.exchange(request);
            }
            return next.exchange(ClientRequest.from(request).header(FencingHeader.NAME, FencingHeader.format(token.getAsLong())).build());
        });
    }
}
