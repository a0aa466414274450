package io.distlock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The benchmark chart: a panel per scenario and backend, axes of their own, the baseline as a line; the JSON read back. */
class BenchChartTest {
    private static Measurement m(String contender, Scenario scenario, double cyclesPerSecond, long p50Micros, long p99Micros) {
        return new Measurement(contender, scenario, Math.round(cyclesPerSecond * 5), 5, p50Micros * 1000, p99Micros * 1000, p99Micros * 2000);
    }

    private static final List<Measurement> RESULTS = List.of(
            m("raw-eval", Scenario.U1, 5171, 190, 310),
            m("distlock-redis", Scenario.U1, 4283, 230, 353),
            m("redisson-rlock", Scenario.U1, 3593, 270, 469),
            m("distlock-zookeeper", Scenario.U1, 732, 1300, 4130),
            m("curator-mutex", Scenario.U1, 940, 1000, 2883),
            m("distlock-jdbc/postgres", Scenario.U1, 1500, 600, 900),
            m("raw-eval", Scenario.C16, 34403, 400, 825),
            m("distlock-redis", Scenario.C16, 4984, 3000, 4795),
            m("redisson-rlock", Scenario.C16, 3223, 900, 47300));

    private static Map<String, String> environment() {
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("date", "2026-11-24T12:36:24.485154110Z");
        environment.put("cores", "2");
        environment.put("cpu", "AMD EPYC");
        environment.put("jdk", "OpenJDK 64-Bit Server VM 17.0.15");
        return environment;
    }

    @Test
    void eachBackendOfEachScenarioGetsItsOwnPanelWithTheBaselineAsALine() {
        String svg = new Report(RESULTS).svg(environment());

        assertThat(svg).contains("2 cores, AMD EPYC, OpenJDK 17.0.15, 2026-11-24")
                .contains("u1 \u2014 one thread, one lock name \u00b7 Redis", "u1 \u2014 one thread, one lock name \u00b7 ZooKeeper",
                        "u1 \u2014 one thread, one lock name \u00b7 SQL: postgres", "c16 \u2014 16 threads, one name, one client \u00b7 Redis")
                .contains("<title>raw-eval 5,171/s</title>", "<title>raw-eval 34,403/s</title>")
                .doesNotContain(">raw-eval</text>")
                .contains(">distlock-zookeeper</text>", "p50 1.3 ms \u00b7 p99 4.13 ms");
        assertThat(svg.split("\u00b7 Redis<", -1)).hasSize(3);
    }

    @Test
    void anAxisTurnsLogarithmicWhenItsValuesDifferByAHundredTimes() {
        BenchChart.Scale linear = BenchChart.Scale.of(new double[] {3593, 4283, 5171});
        BenchChart.Scale log = BenchChart.Scale.of(new double[] {400, 825, 900, 47300});

        assertThat(linear.log()).isFalse();
        assertThat(linear.min()).isZero();
        assertThat(linear.max()).isGreaterThanOrEqualTo(5171);
        assertThat(linear.ticks()).startsWith(0.0).hasSizeBetween(3, 8);
        assertThat(log.log()).isTrue();
        assertThat(log.min()).isEqualTo(100);
        assertThat(log.max()).isEqualTo(100_000);
        assertThat(log.ticks()).contains(100.0, 1000.0, 10_000.0, 100_000.0);
        assertThat(log.x(1000, 300)).isEqualTo(100.0, org.assertj.core.api.Assertions.within(1e-9));
        String svg = new Report(RESULTS).svg(environment());
        assertThat(svg).contains("latency (log scale)").contains("cycles/s<");
    }

    @Test
    void theJsonOfARunReadsBackIntoTheSameChart() {
        Report report = new Report(RESULTS);
        String json = report.json(environment(), "[]");

        Report.Saved saved = Report.read(json);

        assertThat(saved.environment()).isEqualTo(environment());
        assertThat(saved.results()).hasSize(RESULTS.size());
        assertThat(new Report(saved.results()).svg(saved.environment())).isEqualTo(report.svg(environment()));
        assertThatThrownBy(() -> Report.read("{}")).hasMessageContaining("no benchmark results");
    }

    @Test
    void numbersOnTheAxesAreShort() {
        assertThat(BenchChart.count(5000)).isEqualTo("5k");
        assertThat(BenchChart.count(12_500)).isEqualTo("12.5k");
        assertThat(BenchChart.count(1_200_000)).isEqualTo("1.2M");
        assertThat(BenchChart.micros(850)).isEqualTo("850 \u00b5s");
        assertThat(BenchChart.micros(1500)).isEqualTo("1.5 ms");
        assertThat(BenchChart.micros(2_000_000)).isEqualTo("2 s");
    }
}
