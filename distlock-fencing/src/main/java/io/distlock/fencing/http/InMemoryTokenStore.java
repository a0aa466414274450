package io.distlock.fencing.http;

import io.distlock.fencing.FencingTokens;
import io.distlock.fencing.StaleTokenException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/** The highest token per resource in a concurrent map; {@code compute} makes check-and-record atomic per resource. */
final class InMemoryTokenStore implements FencingTokenStore {
    private final ConcurrentMap<String, Long> highest = new ConcurrentHashMap<>();

    @Override
    public void accept(String resource, long token) {
        FencingTokens.requireValid(token);
        Resources.require(resource);
        long[] refusedBy = {0};
        highest.compute(resource, (key, seen) -> {
            if (seen != null && seen > token) {
                refusedBy[0] = seen;
                return seen;
            }
            return token;
        });
        if (refusedBy[0] != 0) {
            throw new StaleTokenException("HTTP resource '" + resource + "'", token, refusedBy[0]);
        }
    }

    @Override
    public String toString() {
        return "in-memory fencing token store (" + highest.size() + " resources)";
    }
}
