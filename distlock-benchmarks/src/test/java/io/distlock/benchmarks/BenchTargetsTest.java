package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code --target}: the registry's URIs, sorted by backend, in the form each peer takes; what it cannot use is refused before any server starts. */
class BenchTargetsTest {

    /** A stray {@code %} in a description made picocli print a warning three times above the usage (seen in issue 30). */
    @Test
    void theUsageFormatsWithoutWarningsAndNamesEveryKindsContender() {
        PrintStream stderr = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        String usage;
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            usage = BenchMain.commandLine().getUsageMessage();
        } finally {
            System.setErr(stderr);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).doesNotContain("WARN");
        // picocli wraps the description at its width: compare the words, not where the lines break
        assertThat(usage.replaceAll("\\s+", " ")).contains("90% reads", "distlock-etcd-fair", "distlock-jdbc-fair", "distlock-redis-cohort", "distlock-jdbc-cohort");
    }

    @Test
    void theHostsOfATargetAreWhatLiesBetweenSchemeAndPath() {
        assertThat(BenchMain.hosts("zk://a:2181,b:2181/locks?sessionTimeout=2s")).isEqualTo("a:2181,b:2181");
        assertThat(BenchMain.hosts("etcd://user:secret@h1:2379,h2:2379")).isEqualTo("h1:2379,h2:2379");
        assertThat(BenchMain.hosts("redis://127.0.0.1:6379#x")).isEqualTo("127.0.0.1:6379");
    }

    @Test
    void targetsItCannotMeasureOnAreRefusedNamingThem() {
        StringWriter err = new StringWriter();
        CommandLine commandLine = BenchMain.commandLine();
        commandLine.setErr(new PrintWriter(err, true));

        assertThat(commandLine.execute("--target", "consul://127.0.0.1:8500")).isEqualTo(2);
        assertThat(err.toString()).contains("--target: ", "consul://127.0.0.1:8500", "zk:");

        assertThat(commandLine.execute("--target", "redlock://127.0.0.1:1,127.0.0.1:2,127.0.0.1:3")).isEqualTo(2);
        assertThat(err.toString()).contains("not redlock");

        assertThat(commandLine.execute("--target", "redis-sentinel://127.0.0.1:26379#m")).isEqualTo(2);
        assertThat(err.toString()).contains("a redis:// or rediss:// URI of one server");

        assertThat(commandLine.execute("--target", "zk://127.0.0.1:1", "--target", "zk://127.0.0.1:2")).isEqualTo(2);
        assertThat(err.toString()).contains("one server per backend");
    }
}
