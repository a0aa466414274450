package io.distlock.testkit;

import io.distlock.LockClient;

/**
 * Creates clients of one backend for the contract tests. Implementations need a public no-argument
 * constructor: the tests also run them in separate JVMs (see {@link HolderProcess}).
 */
public interface LockClientFactory {

    /** Returns a new client connected to {@code target} (a URI or connect string) with these settings. */
    LockClient create(String target, ClientSettings settings);

    /** Returns a new client connected to {@code target} with {@link ClientSettings#DEFAULTS}. */
    default LockClient create(String target) {
        return create(target, ClientSettings.DEFAULTS);
    }
}
