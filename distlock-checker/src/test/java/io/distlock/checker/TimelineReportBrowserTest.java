package io.distlock.checker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.checker.Event.Type;
import java.awt.image.BufferedImage;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The HTML report in a real browser: headless Chromium runs the page's script, and the test reads the DOM it
 * drew and a screenshot. Skips, saying so, when no Chromium is installed ({@code apt-get install chromium};
 * {@code DISTLOCK_CHROMIUM} names another binary). The screenshots stay in {@code target/timeline-report/}.
 */
class TimelineReportBrowserTest {
    private static final long MS = 1_000_000L;
    private static final Path OUT = Path.of("target", "timeline-report");

    private static Path page;
    private static @Nullable String unusable;
    private static History history;
    private static CheckReport report;

    /**
     * Three processes taking turns for 10 s; process 1 is paused past its lease while holding (the others get the lock
     * once its lease has run out: overlaps allowed), then a server restart, across which two holders overlap (with the
     * default rules, which do not name the restart as losing locks: a violation).
     */
    @BeforeAll
    static void writeThePage() throws IOException {
        List<Event> events = new ArrayList<>();
        long token = 1_795_526_564_103_503L; // a Redis token: server time in microseconds
        long value = 0;
        for (long at = 0; at < 10_000; at += 40) {
            int process = (int) (at / 40 % 3);
            if (process == 1 && at >= 2000 && at < 4700 || at > 1960 && at < 2980) {
                continue; // paused; and the others wait for its lease to run out on the server
            }
            token += 1000;
            events.add(Event.of(at * MS, process, Type.OK, Operation.ACQUIRE, token, 0));
            events.add(Event.of(at * MS, process, Type.INFO, Operation.LEASE, token, (at + 1000) * MS));
            long holdUntil = at == 1960 ? 4620 : at == 7000 ? 7060 : at + 20; // process 1's hold spans the pause
            events.add(Event.of((at + 5) * MS, process, Type.OK, Operation.WRITE, token, ++value));
            boolean stale = holdUntil > at + 20;
            events.add(Event.of((holdUntil - 5) * MS, process, stale ? Type.FAIL : Type.OK, Operation.FENCED_WRITE, token, value));
            if (stale) {
                events.add(Event.of((holdUntil - 2) * MS, process, Type.INFO, Operation.LOST, token, 0));
            }
            events.add(Event.of(holdUntil * MS, process, Type.INVOKE, Operation.RELEASE, token, 0));
        }
        List<Fault> faults = List.of(new Fault(FaultKind.PAUSE, 1, 2010 * MS, 4600 * MS, "paused process 1 for 2590 ms (SIGSTOP)"),
                new Fault(FaultKind.RESTART, -1, 7000 * MS, 7300 * MS, "restarted the lock server"));
        history = new History(events, faults, 0, 10_000 * MS, 1000 * MS, value, List.of());
        report = new Checker(history, EnumSet.of(Invariant.TOKENS, Invariant.LIVENESS), 2000 * MS).check();
        Files.createDirectories(OUT);
        page = OUT.resolve("report.html");
        Files.writeString(page, TimelineReport.html(new TimelineReport.Header("distlock check: browser test", "OK: test", true,
                "./distlock check --seed 1"), history, report), StandardCharsets.UTF_8);
    }

    @Test
    void theScriptDrawsEveryHoldFaultAndOverlapOfTheRun() throws Exception {
        String dom = browser("--window-size=1280,900", "--dump-dom", page.toUri().toString());

        assertThat(report.overlaps()).isNotEmpty();
        assertThat(count(dom, "<rect class=\"hold[^\"]*\" data-h=")).isEqualTo(report.holds().size());
        assertThat(count(dom, "<rect class=\"overlap[ \"]")).isEqualTo(report.overlaps().stream().mapToInt(o -> o.holds().size()).sum());
        assertThat(count(dom, "<rect class=\"overlap violation")).as("the pair across the restart").isEqualTo(2);
        assertThat(count(dom, "<rect class=\"past-lease\"")).as("process 1's hold past its lease").isEqualTo(1);
        assertThat(count(dom, "class=\"nemesis[^\"]*\" data-f=")).isEqualTo(2);
        assertThat(count(dom, "class=\"fault[^\"]*\" data-f=")).as("the pause on the victim's own row").isEqualTo(1);
        assertThat(dom).contains(">process 0<", ">process 2<", ">nemesis<", "class=\"mark rejected\"", "class=\"mark lost\"")
                .contains("showing 0.000 s to 10.000 s");
    }

    @Test
    void theFragmentSelectsAnOverlapHighlightingBothHoldersAndItsEntry() throws Exception {
        String dom = browser("--window-size=1280,900", "--dump-dom", page.toUri() + "#select=o0");

        List<Hold> first = report.overlaps().get(0).holds();
        for (Hold hold : first) {
            int index = report.holds().indexOf(hold);
            assertThat(dom).as("hold %d of process %d", index, hold.process()).containsPattern("<rect class=\"hold[^\"]* selected\" data-h=\"" + index + "\"");
        }
        assertThat(count(dom, "class=\"hold[^\"]* selected\"")).isEqualTo(first.size());
        assertThat(dom).containsPattern("<li id=\"o0\" class=\"selected\">").doesNotContain("<li id=\"o1\" class=\"selected\">")
                .contains("Overlap 1 of " + report.overlaps().size() + ": ");
        Matcher shown = Pattern.compile("showing ([\\d.]+) s to ([\\d.]+) s").matcher(dom);
        assertThat(shown.find()).isTrue();
        assertThat(Double.parseDouble(shown.group(2)) - Double.parseDouble(shown.group(1))).as("zoomed in on the overlap").isLessThan(5);
    }

    @Test
    void aScreenshotShowsHoldsOverlapsAndTheFaultInTheirColours() throws Exception {
        Path shot = OUT.resolve("report-1280.png").toAbsolutePath();
        Files.deleteIfExists(shot);

        browser("--window-size=1280,1400", "--hide-scrollbars", "--screenshot=" + shot, page.toUri() + "#t=1500-5000");

        BufferedImage image = ImageIO.read(shot.toFile());
        assertThat(image.getWidth()).isEqualTo(1280);
        assertThat(pixels(image, 0x0072b2)).as("exclusive holds").isGreaterThan(2000);
        assertThat(pixels(image, 0x009e73)).as("accepted fenced writes").isGreaterThan(20);
        assertThat(pixels(image, 0xd55e00)).as("overlap outlines").isGreaterThan(100);
        assertThat(pixels(image, 0x9a9a9a)).as("the pause on the nemesis row").isGreaterThan(1000);
    }

    @Test
    void aNarrowWindowGetsANarrowTimelineWithTheWholeRun() throws Exception {
        String dom = browser("--window-size=700,900", "--dump-dom", page.toUri().toString());

        Matcher svg = Pattern.compile("<svg [^>]*width=\"(\\d+)\"").matcher(dom);
        assertThat(svg.find()).isTrue();
        assertThat(Integer.parseInt(svg.group(1))).isBetween(420, 700);
        assertThat(dom).contains(">10 s<");
    }

    private static int pixels(BufferedImage image, int rgb) {
        int found = 0;
        for (int y = 0; y < image.getHeight(); y++) {
            for (int x = 0; x < image.getWidth(); x++) {
                if ((image.getRGB(x, y) & 0xffffff) == rgb) {
                    found++;
                }
            }
        }
        return found;
    }

    private static int count(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    /** Runs headless Chromium with these arguments and returns what it printed, without the page's scripts. */
    private static String browser(String... args) throws Exception {
        Optional<String> binary = chromium();
        assumeTrue(binary.isPresent(), "no Chromium found (apt-get install chromium, or DISTLOCK_CHROMIUM=/path): "
                + "the report was not checked in a browser");
        assumeTrue(starts(binary.get()), () -> "Chromium is installed but does not start here (" + unusable
                + "): the report was not checked in a browser");
        Path profile = Files.createTempDirectory("distlock-chromium");
        List<String> command = new ArrayList<>(List.of(binary.get(), "--headless", "--no-sandbox", "--disable-gpu",
                "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=" + profile, "--virtual-time-budget=5000"));
        command.addAll(List.of(args));
        Path output = Files.createTempFile("distlock-chromium", ".out");
        Process process = new ProcessBuilder(command).redirectOutput(output.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            assertThat(process.waitFor(90, TimeUnit.SECONDS)).as("Chromium finished within 90 s").isTrue();
            assertThat(process.exitValue()).as("Chromium's exit code").isZero();
            return Files.readString(output, StandardCharsets.UTF_8).replaceAll("(?s)<script.*?</script>", "");
        } finally {
            process.destroyForcibly();
            Files.deleteIfExists(output);
            deleteTree(profile.toFile());
        }
    }

    /** Whether the browser renders a blank page at all (a broken installation is a skip, not a failure of the report). */
    private static synchronized boolean starts(String binary) throws Exception {
        if (unusable == null) {
            Path profile = Files.createTempDirectory("distlock-chromium");
            Path output = Files.createTempFile("distlock-chromium", ".out");
            Process probe = new ProcessBuilder(binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--user-data-dir=" + profile, "--dump-dom", "about:blank").redirectErrorStream(true).redirectOutput(output.toFile()).start();
            boolean finished = probe.waitFor(60, TimeUnit.SECONDS);
            probe.destroyForcibly();
            String printed = Files.readString(output, StandardCharsets.UTF_8);
            unusable = !finished ? "no page within 60 s" : printed.contains("<html") ? "" : "exit " + probe.exitValue() + ": "
                    + printed.strip().lines().reduce((a, b) -> b).orElse("no output");
            Files.deleteIfExists(output);
            deleteTree(profile.toFile());
        }
        return unusable.isEmpty();
    }

    private static Optional<String> chromium() {
        String configured = System.getenv("DISTLOCK_CHROMIUM");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(configured);
        }
        for (String name : List.of("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")) {
            for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
                if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, name))) {
                    return Optional.of(Path.of(dir, name).toString());
                }
            }
        }
        return Optional.empty();
    }

    private static void deleteTree(File file) {
        File[] children = file.listFiles();
        if (children != null) {
            Arrays.stream(children).forEach(TimelineReportBrowserTest::deleteTree);
        }
        file.delete();
    }
}
