package io.distlock.examples.shop;

import io.distlock.spring.WithLock;
import java.sql.Timestamp;
import java.time.Instant;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * A job every instance schedules, that must run once per period (every 2 s here) across all of them:
 * the instance that takes the lock runs it, the others skip. {@code minHold} keeps the lock for most of
 * the period, so an instance whose scheduler fires a little late does not run it a second time.
 */
@Component
public class ReportJob {
    static final long PERIOD_MILLIS = 2000;

    private final JdbcTemplate jdbc;
    private final String instance;

    public ReportJob(JdbcTemplate jdbc, @Value("${shop.instance}") String instance) {
        this.jdbc = jdbc;
        this.instance = instance;
    }

    @Scheduled(cron = "${shop.report.cron}")
    @WithLock(name = "report", onFailure = WithLock.OnFailure.SKIP, minHold = "1500ms")
    public void run() {
        Instant now = Instant.now();
        jdbc.update("INSERT INTO job_runs (period, instance, ran_at) VALUES (?, ?, ?)", now.toEpochMilli() / PERIOD_MILLIS, instance,
                Timestamp.from(now));
    }
}
