package io.distlock.spi;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The backend settings a provider reads from its target's query, {@code ?name=value&...}: a ZooKeeper session timeout
 * ({@code zk://host:2181?sessionTimeout=4s}), a RedLock node timeout, replica acknowledgement on Redis. A provider
 * takes the parameters it knows and either refuses the rest ({@link #takeAll}) or leaves them in the target for its
 * client library, which reads its own ({@link #take}: Lettuce's {@code redis://...?timeout=}). A fragment after the
 * query ({@code #master} of a Sentinel target) stays in the target. Durations are written {@code 250ms}, {@code 4s} or
 * {@code 2m}.
 */
public final class TargetParameters {
    private static final Pattern DURATION = Pattern.compile("(\\d{1,9})(ms|s|m)");

    private final String target;
    private final String masked;
    private final Map<String, String> taken;

    private TargetParameters(String target, String masked, Map<String, String> taken) {
        this.target = target;
        this.masked = masked;
        this.taken = taken;
    }

    /**
     * Takes the parameters named in {@code known} out of {@code target}'s query and leaves any other in it.
     *
     * @throws IllegalArgumentException if one of them is given twice or without a value
     */
    public static TargetParameters take(String target, Set<String> known) {
        return split(target, known, null);
    }

    /**
     * Takes every parameter of {@code target}'s query, each of which must be named in {@code known}.
     *
     * @throws IllegalArgumentException naming an unknown parameter and the known ones (and {@code form}), or one given
     *     twice or without a value
     */
    public static TargetParameters takeAll(String target, Set<String> known, String form) {
        return split(target, known, form);
    }

    private static TargetParameters split(String target, Set<String> known, @Nullable String formForUnknown) {
        String masked = TargetUri.mask(target);
        int question = target.indexOf('?');
        if (question < 0) {
            return new TargetParameters(target, masked, Map.of());
        }
        int hash = target.indexOf('#', question);
        String fragment = hash < 0 ? "" : target.substring(hash);
        String query = hash < 0 ? target.substring(question + 1) : target.substring(question + 1, hash);
        Map<String, String> taken = new LinkedHashMap<>();
        List<String> left = new ArrayList<>();
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = equals < 0 ? pair : pair.substring(0, equals);
            if (!known.contains(name)) {
                if (formForUnknown != null) {
                    throw new IllegalArgumentException("target '" + masked + "' has an unknown parameter '" + name + "'; known: "
                            + (known.isEmpty() ? "none" : String.join(", ", new TreeSet<>(known))) + " (" + formForUnknown + ")");
                }
                left.add(pair);
                continue;
            }
            if (equals < 0 || equals == pair.length() - 1) {
                throw new IllegalArgumentException("target '" + masked + "': parameter '" + name + "' has no value");
            }
            if (taken.put(name, pair.substring(equals + 1)) != null) {
                throw new IllegalArgumentException("target '" + masked + "': parameter '" + name + "' is given twice");
            }
        }
        String rest = target.substring(0, question) + (left.isEmpty() ? "" : "?" + String.join("&", left)) + fragment;
        return new TargetParameters(rest, masked, Map.copyOf(taken));
    }

    /** Returns the target without the parameters taken (with those left for the client library). */
    public String target() {
        return target;
    }

    /**
     * Returns the duration given for {@code name}, if given.
     *
     * @throws IllegalArgumentException naming the parameter, if it is not a positive {@code 250ms}, {@code 4s}, {@code 2m}
     */
    public Optional<Duration> duration(String name) {
        String value = taken.get(name);
        if (value == null) {
            return Optional.empty();
        }
        Matcher m = DURATION.matcher(value);
        if (!m.matches() || Long.parseLong(m.group(1)) == 0) {
            throw new IllegalArgumentException("target '" + masked + "': parameter '" + name + "' must be a positive duration such as 250ms, 4s "
                    + "or 2m, was '" + value + "'");
        }
        long amount = Long.parseLong(m.group(1));
        return Optional.of(switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(amount);
            case "s" -> Duration.ofSeconds(amount);
            default -> Duration.ofMinutes(amount);
        });
    }

    /**
     * Returns the whole number given for {@code name}, if given.
     *
     * @throws IllegalArgumentException naming the parameter, if it is not a number from 0 to 999999999
     */
    public OptionalInt integer(String name) {
        String value = taken.get(name);
        if (value == null) {
            return OptionalInt.empty();
        }
        if (!value.matches("\\d{1,9}")) {
            throw new IllegalArgumentException("target '" + masked + "': parameter '" + name + "' must be a whole number, was '" + value + "'");
        }
        return OptionalInt.of(Integer.parseInt(value));
    }

    /**
     * Returns the truth value given for {@code name}, if given.
     *
     * @throws IllegalArgumentException naming the parameter, if it is neither {@code true} nor {@code false}
     */
    public Optional<Boolean> bool(String name) {
        String value = taken.get(name);
        if (value == null) {
            return Optional.empty();
        }
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("target '" + masked + "': parameter '" + name + "' must be true or false, was '" + value + "'");
        }
        return Optional.of(Boolean.parseBoolean(value));
    }
}
