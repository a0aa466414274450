/**
 * Fencing over HTTP: the client sends its fencing token in a {@value io.distlock.fencing.http.FencingHeader#NAME}
 * header ({@link io.distlock.fencing.http.FencedHttp} for {@code java.net.http},
 * {@link io.distlock.fencing.http.FencingTokenRequestInterceptor} for Spring's {@code RestClient} and
 * {@code RestTemplate}, {@link io.distlock.fencing.http.FencingTokenExchangeFilter} for {@code WebClient}); the server's
 * {@link io.distlock.fencing.http.FencingTokenFilter} keeps the highest token per resource in a
 * {@link io.distlock.fencing.http.FencingTokenStore} and answers a lower one with 409 and an RFC 9457 problem body.
 */
@NullMarked
package io.distlock.fencing.http;

import org.jspecify.annotations.NullMarked;
