package io.distlock.spring;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations of {@link WithLock}: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d}, or ISO-8601 ({@code PT5S}). */
final class Durations {
    private static final Pattern SIMPLE = Pattern.compile("(\\d+)\\s*(ns|us|ms|s|m|h|d)");

    private Durations() {}

    /**
     * Parses {@code text}.
     *
     * @throws IllegalArgumentException naming the attribute and where it is, if the text is not a duration or is negative
     */
    static Duration parse(String text, String attribute, String where) {
        String trimmed = text.trim().toLowerCase(Locale.ROOT);
        Duration duration;
        Matcher simple = SIMPLE.matcher(trimmed);
        try {
            if (simple.matches()) {
                long amount = Long.parseLong(simple.group(1));
                duration = switch (simple.group(2)) {
                    case "ns" -> Duration.ofNanos(amount);
                    case "us" -> Duration.ofNanos(Math.multiplyExact(amount, 1000L));
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                };
            } else {
                duration = Duration.parse(text.trim());
            }
        } catch (DateTimeParseException | ArithmeticException e) {
            throw new IllegalArgumentException("@WithLock " + attribute + " = \"" + text + "\" on " + where
                    + " is not a duration (use 500ms, 5s, 2m, 1h, 1d or ISO-8601 such as PT5S)", e);
        }
        if (duration.isNegative()) {
            throw new IllegalArgumentException("@WithLock " + attribute + " = \"" + text + "\" on " + where + " must not be negative");
        }
        return duration;
    }
}
