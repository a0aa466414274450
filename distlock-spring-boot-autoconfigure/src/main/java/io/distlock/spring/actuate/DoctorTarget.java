package io.distlock.spring.actuate;

import io.distlock.OpenOptions;
import java.util.Objects;

/**
 * The auto-configured client's server as {@code distlock doctor} examines it: the registry target and the options the
 * client was opened with (its lease time, its DataSource), so the doctor judges the server the application uses.
 *
 * @param target a registry target ({@code redis://...}, {@code zk://...}, a JDBC URL)
 * @param options the client's options
 */
public record DoctorTarget(String target, OpenOptions options) {
    /** Checks that both are there. */
    public DoctorTarget {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(options, "options");
    }
}
