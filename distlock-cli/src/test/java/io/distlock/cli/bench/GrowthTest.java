package io.distlock.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The growth scenario's levels, its proxied target and its chart. */
class GrowthTest {

    @Test
    void levelsArePowersOfTenUpToTheMostWhichIsAlwaysMeasured() {
        assertThat(Growth.levels(100_000)).containsExactly(1, 10, 100, 1_000, 10_000, 100_000);
        assertThat(Growth.levels(2_500)).containsExactly(1, 10, 100, 1_000, 2_500);
        assertThat(Growth.levels(1)).containsExactly(1);
    }

    @Test
    void theOneServerOfATargetIsReplacedByTheProxyAndAnythingElseIsRefusedWithTheReason() {
        assertThat(Growth.through("redis://127.0.0.1:6390", 41000)).isEqualTo("redis://127.0.0.1:41000");
        assertThat(Growth.through("jdbc:postgresql://localhost:5433/postgres?user=postgres", 41000))
                .isEqualTo("jdbc:postgresql://localhost:41000/postgres?user=postgres");
        assertThat(Growth.portOf("zk://127.0.0.1:2182/ns")).isEqualTo(2182);

        assertThatThrownBy(() -> Growth.through("jdbc:h2:mem:x", 1)).hasMessageContaining("must name 127.0.0.1:port");
        assertThatThrownBy(() -> Growth.through("zk://127.0.0.1:2181,127.0.0.1:2182", 1)).hasMessageContaining("one server");
    }

    @Test
    void theChartDrawsALinePerBackendInEachPanelAndSkipsHeapNotMeasured() {
        List<Growth.Point> points = List.of(new Growth.Point("redis", 1, false, 0.1, Double.NaN, 100, 300),
                new Growth.Point("redis", 1_000, false, 20, 400, 120, 350), new Growth.Point("etcd", 1, false, 1, Double.NaN, 700, 2_000),
                new Growth.Point("etcd", 1_000, true, 1, 900, 750, 2_500));

        String svg = GrowthChart.svg(points, "2 cores, 2026-11-27");

        assertThat(svg).startsWith("<svg").endsWith("</svg>\n").contains("2 cores, 2026-11-27");
        assertThat(count(svg, "stroke=\"#d62728\" stroke-width")).as("a redis line per panel").isEqualTo(4);
        assertThat(count(svg, "stroke=\"#1f77b4\" stroke-width")).as("an etcd line per panel").isEqualTo(4);
        assertThat(count(svg, "<circle")).as("two points a line, but heap only where measured").isEqualTo(4 * 2 * 2 - 2);
        assertThat(svg).doesNotContain("NaN");
        assertThat(count(svg, "r=\"5\"")).as("the stalled point, larger, in each panel").isEqualTo(4);
        assertThat(svg).contains("etcd, 1000 held (stalled");
    }

    @Test
    void rowsAsPrintedAreReadBackAmongOtherLines() {
        List<Growth.Point> points = List.of(new Growth.Point("redis", 1, false, 0.1, Double.NaN, 232, 2582),
                new Growth.Point("zookeeper", 18_809, true, 4863.3, 2779, 2825, 455_287), new Growth.Point("postgres", 1_000, false, 72.7,
                        -7277, 164, 3590));
        List<String> lines = new java.util.ArrayList<>(List.of(Growth.Point.header(), "growth failed on etcd: timed out"));
        points.forEach(p -> lines.add(p.row()));

        assertThat(Growth.parse(lines)).containsExactlyElementsOf(points);
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }
}
