package io.distlock.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.cli.bench.Measurement;
import io.distlock.cli.bench.Report;
import io.distlock.cli.bench.Scenario;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The x4 results go into results.json beside the in-process ones, and {@code --compare} reads them back. */
class CrossProcessReportTest {
    private static final List<CrossProcess.Result> X4 = List.of(
            new CrossProcess.Result("distlock-fair", 2100.5, 310_000, 1_200_000, 10_500),
            new CrossProcess.Result("textbook-setnx", 1231.0, 95_000, 4_000_000, 6_000));

    @Test
    void theX4ResultsOfAResultsJsonReadBackAsWritten() {
        String json = new Report(List.of(new Measurement("raw-eval", Scenario.U1, 1000, 0.1, 86_000, 150_000, 2_000_000)))
                .json(Map.of("date", "2026-11-28"), "[{\"implementation\":\"distlock-redis\",\"locks\":10}]", CrossProcess.json(X4));

        assertThat(CrossProcess.read(json)).isEqualTo(X4);
        assertThat(Report.read(json).results()).hasSize(1); // the in-process reader does not take x4 rows for its own
        assertThat(CrossProcess.read("{\"results\":[]}")).isEmpty(); // a run without x4, or from before x4 was saved
    }

    @Test
    void aComparisonShowsEachImplementationsRatiosAndWhatOnlyOneRunHas() {
        List<CrossProcess.Result> now = List.of(new CrossProcess.Result("distlock-fair", 4201.0, 155_000, 600_000, 21_000),
                new CrossProcess.Result("jetcd-lock", 500.0, 1_000_000, 2_000_000, 2_500));

        String table = CrossProcess.compare(now, X4);

        assertThat(table).containsPattern("x4\\s+distlock-fair\\s+4201\\s+2101\\s+2\\.00x\\s+155\\s+310\\s+0\\.50x\\s+600\\s+1200\\s+0\\.50x");
        assertThat(table).containsPattern("x4\\s+jetcd-lock\\s+500\\s+\\(new\\)");
        assertThat(table).containsPattern("x4\\s+textbook-setnx\\s+\\(not run\\)\\s+1231");
    }
}
