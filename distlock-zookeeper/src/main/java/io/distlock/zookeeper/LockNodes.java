package io.distlock.zookeeper;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;

/**
 * Paths of a lock's queue: {@code /<name, URL-encoded>/lock-<owner id>-<sequence>} under the client's
 * namespace. The owner id in the node name lets a client find its node again after a connection loss
 * during create (Curator's protected mode adds its own prefix in front).
 */
final class LockNodes {
    static final String NODE_PREFIX = "lock-";
    private static final int SEQUENCE_DIGITS = 10;
    static final Comparator<String> BY_SEQUENCE = Comparator.comparing(LockNodes::sequence);

    private LockNodes() {}

    /** The length of Curator's protection prefix, {@code _c_<uuid>-}. */
    private static final int PROTECTION_LENGTH = 3 + 36 + 1;

    /** Returns the parent node of a plain lock's queue; any name is a valid single path element. */
    static String parent(String name) {
        return parent("", name);
    }

    /**
     * Returns the parent node of a lock's queue under {@code root} ("" for plain locks, {@code /~fair},
     * {@code /~rw}, {@code /~sem} for the other kinds: an encoded name never contains '~', so kinds never
     * meet plain lock names).
     */
    static String parent(String root, String name) {
        return root + encoded(name);
    }

    private static String encoded(String name) {
        String encoded = URLEncoder.encode(name, StandardCharsets.UTF_8).replace("*", "%2A");
        if (encoded.equals(".") || encoded.equals("..")) {
            encoded = encoded.replace(".", "%2E");
        }
        return "/" + encoded;
    }

    /** Returns the path (before the server appends the sequence) of a plain lock's node for this owner. */
    static String nodePath(String name, String ownerId) {
        return parent(name) + "/" + NODE_PREFIX + ownerId + "-";
    }

    /** Returns a child's name without Curator's protection prefix: it starts with its kind's prefix. */
    static String bare(String child) {
        return child.startsWith("_c_") && child.length() > PROTECTION_LENGTH ? child.substring(PROTECTION_LENGTH) : child;
    }

    static String sequence(String child) {
        return child.length() < SEQUENCE_DIGITS ? child : child.substring(child.length() - SEQUENCE_DIGITS);
    }

    /** Returns the children that are plain lock nodes, in queue order. */
    static List<String> queue(List<String> children) {
        return children.stream().filter(child -> child.contains(NODE_PREFIX)).sorted(BY_SEQUENCE).toList();
    }

    /** Returns the children that are queue nodes of a kind's lock (any of its node prefixes), in queue order. */
    static List<String> queue(List<String> children, List<String> prefixes) {
        return children.stream().filter(child -> prefixes.stream().anyMatch(LockNodes.bare(child)::startsWith)).sorted(BY_SEQUENCE).toList();
    }

    static String lastSegment(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
