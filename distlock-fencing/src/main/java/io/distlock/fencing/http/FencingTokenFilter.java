package io.distlock.fencing.http;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.StaleTokenException;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.function.Function;

/**
 * A servlet filter that fences the requests it sees: each must carry a {@value FencingHeader#NAME} header whose token
 * is not below the highest its resource has seen ({@link FencingTokenStore}); a lower one is answered 409 with an RFC
 * 9457 problem body naming the resource, the presented and the highest token, and the request goes no further.
 *
 * <pre>{@code
 * FilterRegistrationBean<FencingTokenFilter> fencing = new FilterRegistrationBean<>(
 *         FencingTokenFilter.builder(FencingTokenStore.sql(dataSource, FenceTable.defaults())).build());
 * fencing.addUrlPatterns("/stock/*");
 * }</pre>
 *
 * <p>What it promises: a request is refused if, when it arrives, its resource has already seen a higher token. What it
 * does not: requests for one resource that are in the handler at the same time are not ordered by it (an older one
 * that passed first may still write last). For that, the handler writes through a guard with the request's token;
 * the filter makes it current ({@link FencingContext}), so {@code stock.update(connection, set, where, ...)} in the
 * handler takes it without being handed it.
 *
 * <p>A request without the header is answered 428 (Precondition Required), unless the filter was built with
 * {@link Builder#allowUnfenced()}; a malformed header is answered 400; a store that cannot answer (its database down)
 * 503, and the request goes no further. The resource is the request's path within the
 * application by default ({@link Builder#resource} sets another rule). Tokens of different locks are not comparable:
 * one resource must be written under one lock name.
 */
public final class FencingTokenFilter implements Filter {
    private final FencingTokenStore store;
    private final Function<HttpServletRequest, String> resource;
    private final boolean allowUnfenced;

    private FencingTokenFilter(Builder builder) {
        this.store = builder.store;
        this.resource = builder.resource;
        this.allowUnfenced = builder.allowUnfenced;
    }

    /** Returns a builder of a filter that keeps the highest tokens in {@code store}. */
    public static Builder builder(FencingTokenStore store) {
        return new Builder(Objects.requireNonNull(store, "store"));
    }

    @Override
    public void doFilter(ServletRequest servletRequest, ServletResponse servletResponse, FilterChain chain) throws IOException, ServletException {
        if (!(servletRequest instanceof HttpServletRequest request) || !(servletResponse instanceof HttpServletResponse response)) {
            chain.doFilter(servletRequest, servletResponse);
            return;
        }
        String header = request.getHeader(FencingHeader.NAME);
        if (header == null) {
            if (allowUnfenced) {
                chain.doFilter(request, response);
            } else {
                problem(response, 428, "about:blank", "Precondition Required", "this resource is fenced: send the lock's fencing token in a "
                        + FencingHeader.NAME + " header", "");
            }
            return;
        }
        long token;
        String name = "";
        try {
            token = FencingHeader.parse(header);
            name = resource.apply(request);
            store.accept(name, token);
        } catch (StaleTokenException stale) {
            problem(response, 409, FencingHeader.STALE_TOKEN_PROBLEM, "Stale fencing token", "fencing token " + stale.presented()
                    + " is below " + stale.highestSeen() + ", which " + name + " has seen: the lock was granted to a newer holder since; nothing was done",
                    ",\"resource\":" + json(name) + ",\"presentedToken\":" + stale.presented() + ",\"highestToken\":" + stale.highestSeen());
            return;
        } catch (IllegalArgumentException bad) {
            problem(response, 400, "about:blank", "Bad Request", String.valueOf(bad.getMessage()), "");
            return;
        } catch (RuntimeException storeFailed) {
            // not known to be fresh: the request must not go on unchecked
            problem(response, 503, "about:blank", "Service Unavailable", "the fencing token store (" + store + ") could not check the token: "
                    + storeFailed.getMessage(), "");
            return;
        }
        try (FencingContext.Scope scope = FencingContext.enter(token)) {
            chain.doFilter(request, response);
        }
    }

    private static void problem(HttpServletResponse response, int status, String type, String title, String detail, String members) throws IOException {
        byte[] body = ("{\"type\":" + json(type) + ",\"title\":" + json(title) + ",\"status\":" + status + ",\"detail\":" + json(detail) + members + "}")
                .getBytes(StandardCharsets.UTF_8);
        response.setStatus(status);
        response.setContentType(FencingHeader.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** Returns {@code text} as a JSON string. */
    static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    /** Builds a {@link FencingTokenFilter}; immutable once built. */
    public static final class Builder {
        private final FencingTokenStore store;
        private Function<HttpServletRequest, String> resource = FencingTokenFilter::pathWithinApplication;
        private boolean allowUnfenced;

        private Builder(FencingTokenStore store) {
            this.store = store;
        }

        /** Names a request's resource by {@code rule} (default: its path within the application, such as {@code /stock/42}). */
        public Builder resource(Function<HttpServletRequest, String> rule) {
            this.resource = Objects.requireNonNull(rule, "rule");
            return this;
        }

        /** Lets requests without a {@value FencingHeader#NAME} header through, unchecked (default: answered 428). */
        public Builder allowUnfenced() {
            this.allowUnfenced = true;
            return this;
        }

        /** Returns the filter. */
        public FencingTokenFilter build() {
            return new FencingTokenFilter(this);
        }
    }

    private static String pathWithinApplication(HttpServletRequest request) {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        return context != null && !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length()) : uri;
    }
}
