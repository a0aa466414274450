package io.distlock.fencing.sql;

import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/** Table and column names the guards put into SQL: plain identifiers only, so nothing else reaches a statement. */
final class SqlNames {
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}(\\.[A-Za-z_][A-Za-z0-9_]{0,62})?");

    private SqlNames() {
    }

    /** Returns {@code name} if it is a plain identifier, optionally schema-qualified ({@code schema.table}). */
    static String require(@Nullable String name, String what) {
        if (name == null || !IDENTIFIER.matcher(name).matches()) {
            throw new IllegalArgumentException(what + " must be a plain SQL identifier (letters, digits, _; optionally schema.name), "
                    + "got " + (name == null ? "null" : "'" + name + "'"));
        }
        return name;
    }

    /** Returns {@code fragment} if it is a non-blank SQL fragment without a statement separator or comment. */
    static String requireFragment(@Nullable String fragment, String what) {
        if (fragment == null || fragment.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-blank SQL fragment");
        }
        if (fragment.contains(";") || fragment.contains("--") || fragment.contains("/*")) {
            throw new IllegalArgumentException(what + " must be one SQL fragment, without ';' or comments: '" + fragment + "'");
        }
        return fragment;
    }

    /** Returns how many {@code ?} parameters {@code fragment} has outside quoted literals and quoted identifiers. */
    static int parameters(String fragment) {
        int count = 0;
        char quote = 0;
        for (int i = 0; i < fragment.length(); i++) {
            char c = fragment.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                }
            } else if (c == '\'' || c == '"' || c == '`') {
                quote = c;
            } else if (c == '?') {
                count++;
            }
        }
        return count;
    }
}
