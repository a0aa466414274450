package io.distlock.examples.shop;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.servers.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Three instances of the shop (three application contexts, each with its own web server, lock client
 * and scheduler) on one real redis-server and one database: concurrent purchases over HTTP never sell
 * more than the stock, and the report job runs once per period.
 */
class ThreeInstancesTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startThreeInstances() {
        for (int i = 1; i <= 3; i++) {
            instances.add(new SpringApplicationBuilder(ShopApplication.class).run(
                    "--server.port=0",
                    "--shop.instance=instance-" + i,
                    "--spring.data.redis.host=127.0.0.1",
                    "--spring.data.redis.port=" + redis.server().port(),
                    "--spring.datasource.url=jdbc:h2:mem:shop-three-instances;DB_CLOSE_DELAY=-1"));
        }
    }

    @AfterAll
    static void stopThem() {
        instances.forEach(ConfigurableApplicationContext::close);
    }

    private static JdbcTemplate db() {
        return instances.get(0).getBean(JdbcTemplate.class);
    }

    private static String url(int instance, String path) {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) instances.get(instance)).getWebServer().getPort() + path;
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void concurrentPurchasesAcrossThreeInstancesSellTheLastItemsExactlyOnce() throws Exception {
        db().update("UPDATE stock SET quantity = 50, fence = 0 WHERE sku = 'last-items'");
        double acquiredBefore = acquiredStockLocks();
        ExecutorService buyers = Executors.newFixedThreadPool(24);
        List<Future<Integer>> purchases = new ArrayList<>();
        try {
            for (int i = 0; i < 120; i++) {
                int instance = i % 3;
                purchases.add(buyers.submit(() -> send(HttpRequest.newBuilder(URI.create(url(instance, "/orders?sku=last-items&quantity=1")))
                        .POST(HttpRequest.BodyPublishers.noBody())).statusCode()));
            }
            int sold = 0;
            int soldOut = 0;
            for (Future<Integer> purchase : purchases) {
                int status = purchase.get(120, TimeUnit.SECONDS);
                assertThat(status).isIn(200, 409);
                if (status == 200) {
                    sold++;
                } else {
                    soldOut++;
                }
            }
            assertThat(sold).as("exactly the stock was sold").isEqualTo(50);
            assertThat(soldOut).isEqualTo(70);
        } finally {
            buyers.shutdownNow();
        }
        assertThat(db().queryForObject("SELECT quantity FROM stock WHERE sku = 'last-items'", Integer.class)).isZero();
        assertThat(db().queryForObject("SELECT COUNT(*) FROM orders WHERE sku = 'last-items'", Integer.class)).isEqualTo(50);
        assertThat(db().queryForObject("SELECT COUNT(DISTINCT fence) FROM orders WHERE sku = 'last-items'", Integer.class))
                .as("every sale under its own, newer fencing token").isEqualTo(50);
        assertThat(db().queryForObject("SELECT COUNT(DISTINCT instance) FROM orders", Integer.class)).as("all three instances sold").isEqualTo(3);
        assertThat(send(HttpRequest.newBuilder(URI.create(url(1, "/stock/last-items")))).body()).contains("\"left\":0");

        // what the instances' metrics say: 120 more acquisitions of "stock", all acquired
        assertThat(acquiredStockLocks() - acquiredBefore).isEqualTo(120);
    }

    /** Returns how many times the three instances acquired the lock "stock", by their metrics. */
    private static double acquiredStockLocks() throws Exception {
        double acquired = 0;
        for (int i = 0; i < 3; i++) {
            String metric = send(HttpRequest.newBuilder(URI.create(url(i, "/actuator/metrics/distlock.acquire?tag=distlock.name:stock&tag=outcome:acquired")))).body();
            if (metric.contains("\"COUNT\"")) { // no metric yet (404) before an instance's first acquisition
                acquired += Double.parseDouble(metric.replaceAll("(?s).*\"statistic\":\"COUNT\",\"value\":([0-9.E]+).*", "$1"));
            }
        }
        return acquired;
    }

    @Test
    void aPurchaseWhoseTokenIsBelowTheRowsFenceSellsNothing() throws Exception {
        // as if a newer holder had written the row: every token the lock gives out now is below its fence
        db().update("MERGE INTO stock (sku, quantity, fence) KEY (sku) VALUES ('fenced', 5, ?)", Long.MAX_VALUE);
        HttpResponse<String> refused = send(HttpRequest.newBuilder(URI.create(url(2, "/orders?sku=fenced&quantity=1")))
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.body()).contains("lock lost").contains("\"highestToken\":" + Long.MAX_VALUE);
        assertThat(db().queryForObject("SELECT quantity FROM stock WHERE sku = 'fenced'", Integer.class)).as("stock untouched").isEqualTo(5);
        assertThat(db().queryForObject("SELECT COUNT(*) FROM orders WHERE sku = 'fenced'", Integer.class)).as("no order").isZero();
    }

    @Test
    void theReportJobRunsOncePerPeriodAcrossTheInstances() throws Exception {
        long firstPeriod = System.currentTimeMillis() / ReportJob.PERIOD_MILLIS + 1;
        Await.until(Duration.ofSeconds(60), "five job periods", () -> periodsSince(firstPeriod) >= 5);
        List<Map<String, Object>> runs = db().queryForList(
                "SELECT period, COUNT(*) AS runs FROM job_runs WHERE period >= ? GROUP BY period ORDER BY period", firstPeriod);
        assertThat(runs).allSatisfy(period -> assertThat(((Number) period.get("RUNS")).intValue()).as("runs in period " + period.get("PERIOD"))
                .isEqualTo(1));
        long last = ((Number) runs.get(runs.size() - 1).get("PERIOD")).longValue();
        assertThat(runs).as("no period without a run").hasSize((int) (last - firstPeriod + 1));
    }

    @Test
    void theEndpointAndHealthShowTheLocks() throws Exception {
        String health = send(HttpRequest.newBuilder(URI.create(url(0, "/actuator/health")))).body();
        assertThat(health).contains("\"distlock\":{\"status\":\"UP\"").contains("\"reachable\":true");
        String locks = send(HttpRequest.newBuilder(URI.create(url(0, "/actuator/distlocks")))).body();
        assertThat(locks).startsWith("{\"backend\":\"redis\",\"locks\":[");
    }

    private static long periodsSince(long firstPeriod) {
        Long count = db().queryForObject("SELECT COUNT(DISTINCT period) FROM job_runs WHERE period >= ?", Long.class, firstPeriod);
        return count == null ? 0 : count;
    }
}
