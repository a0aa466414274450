package io.distlock.cli.bench;

import java.util.Locale;

/** The fixed scenarios, named so that results stay comparable over time. */
public enum Scenario {
    U1(1, 1, "one thread, one lock name"),
    U16(16, 16, "16 threads, 16 distinct names, one client"),
    C16(16, 1, "16 threads, one name, one client");

    /** Threads that run cycles. */
    public final int threads;
    /** Distinct lock names the threads use (thread i uses name i mod names). */
    public final int names;
    /** What the scenario is, in words. */
    public final String description;

    Scenario(int threads, int names, String description) {
        this.threads = threads;
        this.names = names;
        this.description = description;
    }

    /** Returns the scenario's fixed name, e.g. {@code u16}. */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Returns the scenario with this name. */
    public static Scenario fromId(String id) {
        for (Scenario scenario : values()) {
            if (scenario.id().equals(id.trim().toLowerCase(Locale.ROOT))) {
                return scenario;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + id + "'; choose from u1, u16, c16");
    }
}
