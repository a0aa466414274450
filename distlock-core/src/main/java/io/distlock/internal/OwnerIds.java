package io.distlock.internal;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Issues owner ids: unique per acquisition across all clients. A random 96-bit client prefix plus a
 * counter is as unique as a random id per acquisition, and cheaper to make.
 */
final class OwnerIds {
    private final String prefix;
    private final AtomicLong counter = new AtomicLong();

    OwnerIds() {
        byte[] random = new byte[12];
        new SecureRandom().nextBytes(random);
        this.prefix = Base64.getUrlEncoder().withoutPadding().encodeToString(random) + "-";
    }

    String next() {
        return prefix + Long.toString(counter.incrementAndGet(), 36);
    }
}
