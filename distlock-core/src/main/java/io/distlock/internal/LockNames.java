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
            if (Character.isISOControl(name.charAt(i))) {
                throw new IllegalArgumentException("lock name must not contain control characters (at index " + i + ")");
            }
        }
        return name;
    }
}
