package io.distlock.spring.actuate;

import io.distlock.Finding;
import io.distlock.LockClients;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;

/**
 * The doctor's findings for the health indicator, examined again at most once per interval: a health check is frequent
 * and the doctor reads the server's configuration and sends round trips. One health check at a time examines; others
 * meanwhile report the last findings.
 */
public final class CachedDoctor {
    private final DoctorTarget target;
    private final Duration interval;
    private final Clock clock;
    private final ReentrantLock examining = new ReentrantLock();
    private volatile @Nullable Report last;

    /** What the doctor last found (or why it could not examine), and when. */
    record Report(Instant at, List<Finding> findings, @Nullable String error) {}

    /** Creates a doctor for {@code target} that examines at most once per {@code interval}. */
    public CachedDoctor(DoctorTarget target, Duration interval) {
        this(target, interval, Clock.systemUTC());
    }

    CachedDoctor(DoctorTarget target, Duration interval, Clock clock) {
        this.target = target;
        this.interval = interval;
        this.clock = clock;
    }

    /** Returns whether the last examination found an unsafe setting. */
    static boolean unsafe(Report report) {
        return report.findings().stream().anyMatch(f -> f.severity() == Finding.Severity.UNSAFE);
    }

    /** Returns the findings, examining the server if the last examination is older than the interval. */
    Report report() {
        Report known = last;
        if (known != null && known.at().plus(interval).isAfter(clock.instant())) {
            return known;
        }
        if (!examining.tryLock()) {
            return known != null ? known : new Report(clock.instant(), List.of(), "the first examination is running");
        }
        try {
            Report fresh;
            try {
                fresh = new Report(clock.instant(), LockClients.diagnose(target.target(), target.options()), null);
            } catch (RuntimeException e) {
                fresh = new Report(clock.instant(), List.of(), e.getMessage());
            }
            last = fresh;
            return fresh;
        } finally {
            examining.unlock();
        }
    }

    /** Returns the health details of a report: every finding that is not ok, with its fix, and when it was examined. */
    static Map<String, Object> details(Report report) {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("examinedAt", report.at().toString());
        if (report.error() != null) {
            details.put("error", report.error());
        }
        for (Finding finding : report.findings()) {
            if (finding.severity() != Finding.Severity.OK) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("severity", finding.severity().name().toLowerCase(java.util.Locale.ROOT));
                one.put("observed", finding.observed());
                one.put("why", finding.why());
                one.put("fix", finding.fix());
                details.put(finding.check(), one);
            }
        }
        details.put("exitCode", Finding.exitCode(report.findings()));
        return details;
    }
}
