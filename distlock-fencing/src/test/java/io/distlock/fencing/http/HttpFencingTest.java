package io.distlock.fencing.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.StaleTokenException;
import io.distlock.fencing.sql.FenceTable;
import io.distlock.jdbc.testing.H2Server;
import io.distlock.redis.testing.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.JdkClientHttpConnector;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Fencing over HTTP with a real Tomcat: the header from {@code java.net.http}, RestClient and WebClient; the filter's
 * answers (409 with an RFC 9457 problem, 428, 400); and stores shared by two servers (SQL on H2, Redis) refusing across
 * them what one of them saw.
 */
class HttpFencingTest {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static H2Server h2;
    private static RedisServer redisServer;
    private static RedisClient redisClient;
    private static StatefulRedisConnection<String, String> redis;

    @BeforeAll
    static void launch() {
        h2 = H2Server.launch();
        redisServer = RedisServer.launch();
        redisClient = RedisClient.create(redisServer.uri());
        redis = redisClient.connect();
    }

    @AfterAll
    static void close() {
        redis.close();
        redisClient.shutdown();
        redisServer.close();
        h2.close();
    }

    private static HttpResponse<String> post(String url, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.noBody());
        if (token != null) {
            request.header(FencingHeader.NAME, token);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void aLowerTokenIsAnswered409WithAProblemAndTheHandlerNeverRuns() throws Exception {
        try (FencedServer server = new FencedServer(FencingTokenFilter.builder(FencingTokenStore.inMemory()).build())) {
            HttpResponse<String> first = FencedHttp.requireNotStale(HTTP.send(FencedHttp.fence(
                    HttpRequest.newBuilder(URI.create(server.url("/stock/42"))).POST(HttpRequest.BodyPublishers.noBody()), 5).build(),
                    HttpResponse.BodyHandlers.ofString()));
            assertThat(first.body()).isEqualTo("done 5");
            assertThat(post(server.url("/stock/42"), "5").statusCode()).as("the same holder again").isEqualTo(200);

            HttpResponse<String> stale = post(server.url("/stock/42"), "3");
            assertThat(stale.statusCode()).isEqualTo(409);
            assertThat(stale.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type).startsWith(FencingHeader.PROBLEM_JSON));
            assertThat(stale.body()).contains("\"type\":\"" + FencingHeader.STALE_TOKEN_PROBLEM + "\"", "\"status\":409", "\"resource\":\"/stock/42\"",
                    "\"presentedToken\":3", "\"highestToken\":5", "\"title\":\"Stale fencing token\"");
            assertThatThrownBy(() -> FencedHttp.requireNotStale(stale)).isInstanceOfSatisfying(StaleTokenException.class, e -> {
                assertThat(e.presented()).isEqualTo(3);
                assertThat(e.highestSeen()).isEqualTo(5);
                assertThat(e.resource()).contains("/stock/42");
            });
            assertThat(post(server.url("/stock/43"), "3").statusCode()).as("another resource").isEqualTo(200);
            assertThat(server.done).as("the handler ran for the accepted requests only, with their token current")
                    .containsExactly(new FencedServer.Done("/stock/42", 5), new FencedServer.Done("/stock/42", 5), new FencedServer.Done("/stock/43", 3));
        }
    }

    @Test
    void aMissingHeaderIs428AMalformedOne400AndUnfencedRequestsPassOnlyWhenAllowed() throws Exception {
        try (FencedServer server = new FencedServer(FencingTokenFilter.builder(FencingTokenStore.inMemory()).build())) {
            HttpResponse<String> missing = post(server.url("/stock/1"), null);
            assertThat(missing.statusCode()).isEqualTo(428);
            assertThat(missing.body()).contains(FencingHeader.NAME);
            for (String bad : List.of("abc", "0", "-4", "99999999999999999999", " ", "1.5")) {
                HttpResponse<String> refused = post(server.url("/stock/1"), bad);
                assertThat(refused.statusCode()).as("'%s'", bad).isEqualTo(400);
                assertThat(refused.body()).contains(FencingHeader.NAME);
            }
            assertThat(post(server.url("/stock/1"), String.valueOf(Long.MAX_VALUE)).statusCode()).isEqualTo(200);
            assertThat(post(server.url("/other"), null).statusCode()).as("outside the filter's paths").isEqualTo(200);
            assertThat(server.done).extracting(FencedServer.Done::path).containsExactly("/stock/1", "/other");
        }
        try (FencedServer server = new FencedServer(FencingTokenFilter.builder(FencingTokenStore.inMemory()).allowUnfenced().build())) {
            assertThat(post(server.url("/stock/1"), null).statusCode()).isEqualTo(200);
            assertThat(server.done).containsExactly(new FencedServer.Done("/stock/1", 0));
        }
    }

    @Test
    void aStoreThatFailsIsAnswered503AndTheHandlerNeverRuns() throws Exception {
        FencingTokenStore down = (resource, token) -> {
            throw new IllegalStateException("the token store is down");
        };
        try (FencedServer server = new FencedServer(FencingTokenFilter.builder(down).build())) {
            HttpResponse<String> unavailable = post(server.url("/stock/1"), "3");
            assertThat(unavailable.statusCode()).isEqualTo(503);
            assertThat(unavailable.body()).contains("the token store is down");
            assertThat(server.done).isEmpty();
        }
    }

    @Test
    void restClientSendsTheCurrentTokenAndAStaleOneComesBackAs409() throws Exception {
        try (FencedServer server = new FencedServer(FencingTokenFilter.builder(FencingTokenStore.inMemory()).build())) {
            RestClient client = RestClient.builder().requestFactory(new JdkClientHttpRequestFactory())
                    .requestInterceptor(new FencingTokenRequestInterceptor()).build();
            try (FencingContext.Scope scope = FencingContext.enter(8)) {
                assertThat(client.post().uri(server.url("/stock/7")).retrieve().body(String.class)).isEqualTo("done 8");
            }
            try (FencingContext.Scope scope = FencingContext.enter(6)) {
                assertThatThrownBy(() -> client.post().uri(server.url("/stock/7")).retrieve().body(String.class))
                        .isInstanceOfSatisfying(HttpClientErrorException.class, conflict -> {
                            assertThat(conflict.getStatusCode()).isEqualTo(HttpStatus.CONFLICT);
                            assertThat(FencedHttp.staleToken(conflict.getResponseBodyAsString())).hasValueSatisfying(stale -> {
                                assertThat(stale.presented()).isEqualTo(6);
                                assertThat(stale.highestSeen()).isEqualTo(8);
                            });
                        });
            }
            assertThatThrownBy(() -> client.post().uri(server.url("/stock/7")).retrieve().body(String.class)).as("outside a lock: no header")
                    .isInstanceOfSatisfying(HttpClientErrorException.class, e -> assertThat(e.getStatusCode().value()).isEqualTo(428));
        }
    }

    @Test
    void webClientSendsTheTokenOfTheSubscribingThreadOrOfTheReactorContext() throws Exception {
        try (FencedServer server = new FencedServer(FencingTokenFilter.builder(FencingTokenStore.inMemory()).build())) {
            WebClient client = WebClient.builder().clientConnector(new JdkClientHttpConnector()).filter(new FencingTokenExchangeFilter()).build();
            try (FencingContext.Scope scope = FencingContext.enter(10)) {
                assertThat(client.post().uri(server.url("/stock/9")).retrieve().bodyToMono(String.class).block(Duration.ofSeconds(30))).isEqualTo("done 10");
            }
            assertThat(client.post().uri(server.url("/stock/9")).retrieve().bodyToMono(String.class)
                    .contextWrite(context -> context.put(FencingTokenExchangeFilter.CONTEXT_KEY, 11L)).block(Duration.ofSeconds(30))).isEqualTo("done 11");
            assertThatThrownBy(() -> client.post().uri(server.url("/stock/9")).retrieve().bodyToMono(String.class)
                    .contextWrite(context -> context.put(FencingTokenExchangeFilter.CONTEXT_KEY, 4L)).block(Duration.ofSeconds(30)))
                    .isInstanceOfSatisfying(WebClientResponseException.class, e -> assertThat(e.getStatusCode().value()).isEqualTo(409));
        }
    }

    private static DataSource h2DataSource() {
        JdbcDataSource dataSource = new JdbcDataSource();
        dataSource.setURL(h2.jdbcUrl().replace(";USER=sa;PASSWORD=", ""));
        dataSource.setUser("sa");
        return dataSource;
    }

    private static FencingTokenStore sqlStore() {
        FenceTable fences = FenceTable.named("http_fences");
        try (Connection connection = DriverManager.getConnection(h2.jdbcUrl())) {
            connection.createStatement().execute("DROP TABLE IF EXISTS http_fences");
            fences.create(connection);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
        return FencingTokenStore.sql(h2DataSource(), fences);
    }

    @Test
    void twoServersSharingASqlStoreRefuseWhatEitherHasSeen() throws Exception {
        sharedStoreRefusesAcrossServers(HttpFencingTest::sqlStore);
    }

    @Test
    void twoServersSharingARedisStoreRefuseWhatEitherHasSeen() throws Exception {
        redis.sync().flushall();
        sharedStoreRefusesAcrossServers(() -> FencingTokenStore.redis(redis.sync(), "http-fence:"));
        assertThatThrownBy(() -> FencingTokenStore.redis(redis.sync(), "a{b")).isInstanceOf(IllegalArgumentException.class);
    }

    private static void sharedStoreRefusesAcrossServers(Supplier<FencingTokenStore> stores) throws Exception {
        FencingTokenStore store = stores.get();
        try (FencedServer first = new FencedServer(FencingTokenFilter.builder(store).build());
                FencedServer second = new FencedServer(FencingTokenFilter.builder(store).build())) {
            assertThat(post(first.url("/stock/1"), "20").statusCode()).isEqualTo(200);
            HttpResponse<String> stale = post(second.url("/stock/1"), "19");
            assertThat(stale.statusCode()).as("the other server saw 20").isEqualTo(409);
            assertThat(stale.body()).contains("\"presentedToken\":19", "\"highestToken\":20");
            assertThat(post(second.url("/stock/1"), "21").statusCode()).isEqualTo(200);
            assertThat(post(first.url("/stock/1"), "20").statusCode()).isEqualTo(409);
            assertThat(first.done).containsExactly(new FencedServer.Done("/stock/1", 20));
            assertThat(second.done).containsExactly(new FencedServer.Done("/stock/1", 21));
        }
        assertThatThrownBy(() -> store.accept(" ", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.accept("x".repeat(256), 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.accept("/stock/2", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
