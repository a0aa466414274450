package io.distlock.fencing.http;

/** The checks on a resource name every store makes. */
final class Resources {
    /** The longest resource name a store takes (the fence table's column). */
    static final int MAX_LENGTH = 255;

    private Resources() {}

    static String require(String resource) {
        if (resource == null || resource.isBlank()) {
            throw new IllegalArgumentException("a fenced resource has a name, was blank");
        }
        if (resource.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a fenced resource name has at most " + MAX_LENGTH + " characters, was " + resource.length()
                    + ": '" + FencingHeader.abbreviated(resource) + "'");
        }
        return resource;
    }
}
