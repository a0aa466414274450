package io.distlock.internal;

/** Validates lock names the same way for every backend. */
final class LockNames {
    /** Longest name accepted, in characters; backends may accept fewer. */
    static final int MAX_LENGTH = 1024;

    private LockNames() {}

    static String check(String name) {
        if (name == null) {
            throw new IllegalArgumentException("lock name must not be null");
        }
        if (name.isBlank()) {
            throw new IllegalArgumentException("lock name must not be blank");
        }
        if (name.length() > MAX_LENGTH) {
            throw new IllegalArgumentException(
                    "lock name must be at most " + MAX_LENGTH + " characters, was " + name.length()
                            + " (starts with '" + name.substring(0, 40) + "...')");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (Character.isISOControl(c)) {
                throw new IllegalArgumentException("lock name must not contain control characters (at index " + i + ")");
            }
            if (Character.isHighSurrogate(c) && i + 1 < name.length() && Character.isLowSurrogate(name.charAt(i + 1))) {
                i++; // a valid pair: one code point
            } else if (Character.isSurrogate(c)) {
                // it has no UTF-8 form: it would reach the server as '?', and two names would share one lock
                throw new IllegalArgumentException("lock name must not contain an unpaired UTF-16 surrogate (at index " + i + ")");
            }
        }
        return name;
    }
}
