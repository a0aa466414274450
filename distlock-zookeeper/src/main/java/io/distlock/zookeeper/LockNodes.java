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

    /** Returns the parent node of a lock's queue; any name is a valid single path element. */
    static String parent(String name) {
        String encoded = URLEncoder.encode(name, StandardCharsets.UTF_8).replace("*", "%2A");
        if (encoded.equals(".") || encoded.equals("..")) {
            encoded = encoded.replace(".", "%2E");
        }
        return "/" + encoded;
    }

    /** Returns the path (before the server appends the sequence) of a node for this owner. */
    static String nodePath(String name, String ownerId) {
        return parent(name) + "/" + NODE_PREFIX + ownerId + "-";
    }

    static String sequence(String child) {
        return child.length() < SEQUENCE_DIGITS ? child : child.substring(child.length() - SEQUENCE_DIGITS);
    }

    /** Returns the children that are lock nodes, in queue order. */
    static List<String> queue(List<String> children) {
        return children.stream().filter(child -> child.contains(NODE_PREFIX)).sorted(BY_SEQUENCE).toList();
    }

    static String lastSegment(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }
}
