package io.distlock.servers.deployment;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * One server a backend's {@code -testing} module can start as it is, on a free port, without proxies, replicas or
 * faults: what the demo's store, {@code distlock bench} and the side-by-side benchmarks measure on. Where a
 * {@link DeploymentType} is built to be faulted, this is built to be measured.
 *
 * @param id the name ({@code redis}, {@code zookeeper}, {@code etcd}, {@code postgres}, {@code mariadb}, {@code h2})
 * @param description one line: what runs
 * @param unavailable why it cannot start on this machine (a binary not installed), or empty; asked before it starts
 * @param launcher starts one
 */
public record ServerType(String id, String description, Supplier<Optional<String>> unavailable, Supplier<StartedServer> launcher) {

    /** A server that can start wherever its module is on the class path. */
    public static ServerType of(String id, String description, Supplier<StartedServer> launcher) {
        return new ServerType(id, description, Optional::empty, launcher);
    }

    /**
     * Starts one.
     *
     * @throws IllegalStateException saying why, if it cannot start on this machine
     */
    public StartedServer launch() {
        unavailable.get().ifPresent(why -> {
            throw new IllegalStateException("cannot start " + id + ": " + why);
        });
        return launcher.get();
    }

    /**
     * A running server.
     *
     * @param target where it is, as the backend registry opens it ({@code redis://127.0.0.1:41234}, {@code zk://...},
     *     {@code etcd://...}, {@code jdbc:postgresql://...})
     * @param version what runs, for reports (etcd: {@code etcd Version: 3.4.23}); empty if unknown
     * @param stop stops it and removes what it wrote
     */
    public record StartedServer(String target, String version, Runnable stop) implements AutoCloseable {
        @Override
        public void close() {
            stop.run();
        }
    }
}
