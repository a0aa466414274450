package io.distlock.benchmarks;

import java.util.Locale;

/** The fixed scenarios, named so that results stay comparable over time. */
enum Scenario {
    U1(1, 1, "one thread, one lock name"),
    U16(16, 16, "16 threads, 16 distinct names, one client"),
    C16(16, 1, "16 threads, one name, one client");

    final int threads;
    final int names;
    final String description;

    Scenario(int threads, int names, String description) {
        this.threads = threads;
        this.names = names;
        this.description = description;
    }

    String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    static Scenario fromId(String id) {
        for (Scenario scenario : values()) {
            if (scenario.id().equals(id.trim().toLowerCase(Locale.ROOT))) {
                return scenario;
            }
        }
        throw new IllegalArgumentException("unknown scenario '" + id + "'; choose from u1, u16, c16");
    }
}
