package io.distlock.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BenchCommandTest {

    @Test
    void badOptionsExitWithTwo() {
        StringWriter err = new StringWriter();
        CommandLine commandLine = DistlockCommand.newCommandLine();
        commandLine.setErr(new PrintWriter(err, true));
        assertThat(commandLine.execute("bench", "--scenarios", "u99")).isEqualTo(2);
        assertThat(err.toString()).contains("unknown scenario 'u99'");

        assertThat(commandLine.execute("bench", "--duration", "5")).isEqualTo(2);
        assertThat(err.toString()).contains("--duration must look like 500ms, 30s or 2m, was '5'");

        assertThat(commandLine.execute("bench", "--target", "mongodb://127.0.0.1:1")).isEqualTo(2);
        assertThat(err.toString()).contains("--target: ").contains("redis:").contains("zk:");

        assertThat(commandLine.execute("bench", "--target", "jdbc:h2:mem:bench-hold", "--scenarios", "hold10k")).isEqualTo(2);
        assertThat(err.toString()).contains("hold10k reads the Redis server's own counters");

        assertThat(commandLine.execute("bench", "--target", "jdbc:h2:mem:bench-growth", "--scenarios", "growth")).isEqualTo(2);
        assertThat(err.toString()).contains("--scenarios growth: growth counts round trips through a proxy");

        assertThat(commandLine.execute("bench", "--scenarios", "growth", "--backends", "mongodb")).isEqualTo(2);
        assertThat(err.toString()).contains("--backends: unknown server 'mongodb'; known: ").contains("etcd");

        assertThat(commandLine.execute("bench", "--scenarios", "growth", "--growth-max", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("--growth-max at least 1");

        assertThat(commandLine.execute("bench", "--compare", "no-such-results.json")).isEqualTo(2);
        assertThat(err.toString()).contains("--compare no-such-results.json: no such file");
    }

    @Test
    void aRunWrittenAsJsonIsComparedWithTheNextRunRowByRow(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path before = dir.resolve("before.json");
        String[] shortRun = {"bench", "--target", "jdbc:h2:mem:bench-compare;DB_CLOSE_DELAY=-1", "--scenarios", "u1", "--warmup", "0s",
                "--duration", "1s", "--rounds", "1"};
        bench(concat(shortRun, "--json", before.toString()));
        assertThat(java.nio.file.Files.readString(before)).contains("\"scenario\":\"u1\",\"implementation\":\"distlock-jdbc\"",
                "\"date\":");

        String table = bench(concat(shortRun, "--compare", before.toString()));
        assertThat(table).contains("compared with " + before);
        Matcher row = Pattern.compile("u1\\s+distlock-jdbc\\s+(\\d+)\\s+(\\d+)\\s+(\\d+\\.\\d\\d)x").matcher(table);
        assertThat(row.find()).as(table).isTrue();
        double ratio = Double.parseDouble(row.group(1)) / Double.parseDouble(row.group(2));
        assertThat(Double.parseDouble(row.group(3))).as("now / before, as printed").isCloseTo(ratio, org.assertj.core.data.Offset.offset(0.02));
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = java.util.Arrays.copyOf(head, head.length + tail.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }

    private static String bench(String... args) {
        PrintStream originalOut = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        int exit;
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            exit = DistlockCommand.newCommandLine().execute(args);
        } finally {
            System.setOut(originalOut);
        }
        String table = captured.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(table).isZero();
        return table;
    }

    @Test
    void anyBackendTheRegistryOpensCanBeMeasuredWithoutTheRedisOnlyRawLimit() {
        // H2 in this JVM: the bench runs its threads here, so an in-memory database is shared by all of them
        String table = bench("bench", "--target", "jdbc:h2:mem:bench;DB_CLOSE_DELAY=-1", "--scenarios", "u1", "--warmup", "0s",
                "--duration", "1s", "--rounds", "1");
        Matcher distlock = Pattern.compile("u1\\s+distlock-jdbc\\s+(\\d+)").matcher(table);
        assertThat(distlock.find()).as(table).isTrue();
        assertThat(Long.parseLong(distlock.group(1))).as("cycles/s").isPositive();
        assertThat(table).doesNotContain("raw-eval").doesNotContain("distlock-redis");
    }

    @Test
    void growthCountsTheRenewalsOfHeldLocksOnEachBackendAndDrawsThem(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        // an 1,800 ms lease is renewed every 600 ms: a second's window at each level must see renewals on Redis and H2
        // (leases per lock), whatever the machine's speed. The lease outlasts a pause of over a second (a full GC of the
        // test JVM, which also runs the H2 server, on a busy machine): with 600 ms a lease was once lost before the window
        // and nothing was renewed in it.
        java.nio.file.Path chart = dir.resolve("growth.svg");
        String table = bench("bench", "--scenarios", "growth", "--backends", "redis,h2", "--growth-max", "10", "--window", "1s",
                "--lease", "1800ms", "--chart", chart.toString());
        for (String backend : new String[] {"redis", "h2"}) {
            for (int held : new int[] {1, 10}) {
                Matcher row = Pattern.compile("growth\\s+" + backend + "\\s+" + held + "\\s+(\\d+\\.\\d)\\s+-\\s+(\\d+)us").matcher(table);
                assertThat(row.find()).as("%s at %d held in%n%s", backend, held, table).isTrue();
                assertThat(Double.parseDouble(row.group(1))).as("round trips/s of %s holding %d", backend, held).isPositive();
                assertThat(Long.parseLong(row.group(2))).as("acquire p50").isPositive();
            }
        }
        assertThat(java.nio.file.Files.readString(chart)).startsWith("<svg").contains(">redis<", ">h2<");
    }

    @Test
    void growthThatCannotReachALevelInTimeMeasuresWhereItStalledAndStops() {
        String table = bench("bench", "--scenarios", "growth", "--backends", "h2", "--growth-max", "100000", "--window", "1s",
                "--fill-limit", "1ms");
        Matcher stalled = Pattern.compile("growth\\s+h2\\s+(\\d+) \\(stalled\\)").matcher(table);
        assertThat(stalled.find()).as(table).isTrue();
        assertThat(Integer.parseInt(stalled.group(1))).as("held when it stalled").isBetween(1, 99_999);
        assertThat(table).as("no level after the stall").doesNotContainPattern("growth\\s+h2\\s+100000");
    }

    @Test
    void aShortRunMeasuresDistlockNextToTheRawLimitAndTheHoldCost() {
        String table = bench("bench", "--scenarios", "u1,hold10k", "--warmup", "0s",
                "--duration", "1s", "--rounds", "1", "--hold", "2s", "--hold-locks", "300");
        Matcher distlock = Pattern.compile("u1\\s+distlock-redis\\s+(\\d+)").matcher(table);
        assertThat(distlock.find()).as(table).isTrue();
        assertThat(Long.parseLong(distlock.group(1))).as("cycles/s").isPositive();
        assertThat(table).containsPattern("u1\\s+raw-eval\\s+\\d+");
        Matcher hold = Pattern.compile("hold10k\\s+distlock-redis\\s+300\\s+").matcher(table);
        assertThat(hold.find()).as(table).isTrue();
    }
}
