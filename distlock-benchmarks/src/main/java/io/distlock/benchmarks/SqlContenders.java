package io.distlock.benchmarks;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.distlock.cli.bench.BasicContenders;
import io.distlock.cli.bench.Contender;
import io.distlock.LockClients;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbctemplate.JdbcTemplateLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The locks users run on a database, each on its own connections to the same server: distlock-jdbc
 * with its defaults, ShedLock's JdbcTemplate provider and Spring Integration's JdbcLockRegistry, the
 * latter two on a HikariCP pool of 16 connections (one per thread of the largest scenario: their best case).
 */
final class SqlContenders {
    static final List<String> IDS = List.of("distlock-jdbc", "shedlock-jdbc", "spring-jdbc");
    /** distlock's other kinds on the databases (issue 30), only when named. */
    static final List<String> KIND_IDS = List.of("distlock-jdbc-fair", "distlock-jdbc-rw", "distlock-jdbc-semaphore");
    /** distlock-jdbc with local handoffs (16 in a row, issue 34), only when named. */
    static final String COHORT = "distlock-jdbc-cohort";

    /** Returns whether {@code id} is measured on the databases. */
    static boolean isSql(String id) {
        return IDS.contains(id) || KIND_IDS.contains(id) || COHORT.equals(id);
    }
    /** Connections of the pool ShedLock and Spring Integration get. */
    static final int POOL_SIZE = 16;

    private SqlContenders() {}

    /** A database to measure on: a label for the results ({@code postgres}, {@code mariadb}) and a JDBC URL. */
    record Target(String label, String jdbcUrl) {
        private static final Pattern PORT = Pattern.compile("^(jdbc:[a-z]+://[^:/]+:)(\\d+)(/.*)$");

        /** Returns the label of the database a JDBC URL points at. */
        static String labelOf(String jdbcUrl) {
            if (jdbcUrl.startsWith("jdbc:postgresql:")) {
                return "postgres";
            }
            if (jdbcUrl.startsWith("jdbc:mariadb:") || jdbcUrl.startsWith("jdbc:mysql:")) {
                return "mariadb";
            }
            throw new IllegalArgumentException("unsupported JDBC URL '" + jdbcUrl + "': the SQL benchmarks run on PostgreSQL and MariaDB/MySQL");
        }

        /** Returns this target reached through another port on the same host (a counting proxy). */
        Target viaPort(int port) {
            Matcher m = PORT.matcher(jdbcUrl);
            if (!m.matches()) {
                throw new IllegalArgumentException("cannot find host:port in '" + jdbcUrl + "'");
            }
            return new Target(label, m.group(1) + port + m.group(3));
        }

        /** Returns the port the URL names. */
        int port() {
            Matcher m = PORT.matcher(jdbcUrl);
            if (!m.matches()) {
                throw new IllegalArgumentException("cannot find host:port in '" + jdbcUrl + "'");
            }
            return Integer.parseInt(m.group(2));
        }
    }

    /** Returns the result name of {@code id} on {@code target}, e.g. {@code shedlock-jdbc/postgres}. */
    static String resultId(String id, Target target) {
        return id + "/" + target.label();
    }

    static Contender create(String id, Target target) {
        String shown = resultId(id, target);
        return switch (id) {
            case "distlock-jdbc" -> BasicContenders.distlock(shown, LockClients.open(target.jdbcUrl(), "distlock_bench_locks"),
                    io.distlock.LockOptions.builder().localHandoffs(0).build()); // every grant through the server, as in earlier runs
            case COHORT -> BasicContenders.distlock(shown, LockClients.open(target.jdbcUrl(), "distlock_bench_locks"),
                    io.distlock.LockOptions.builder().localHandoffs(16).build());
            case "shedlock-jdbc" -> new ShedLock(shown, target);
            case "spring-jdbc" -> new SpringJdbcLock(shown, target);
            case "distlock-jdbc-fair", "distlock-jdbc-rw", "distlock-jdbc-semaphore" -> KindContenders.onTarget(shown, target.jdbcUrl(),
                    "distlock_bench_locks");
            default -> throw new IllegalArgumentException("unknown SQL implementation '" + id + "'; choose from " + IDS);
        };
    }

    private static HikariDataSource pool(Target target) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(target.jdbcUrl());
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        config.setPoolName("bench-" + target.label());
        return new HikariDataSource(config);
    }

    private static void execute(DataSource dataSource, String sql) {
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot run '" + sql + "': " + e.getMessage(), e);
        }
    }

    /**
     * ShedLock with the database's clock ({@code usingDbTime()}), lockAtMostFor 30 s, lockAtLeastFor 0.
     * ShedLock does not wait for a lock (it skips a job whose lock is taken), so {@link #lock} retries
     * after 1 ms, as the textbook Redis lock does: what a user who needs a waiting lock writes around it.
     */
    private static final class ShedLock implements Contender {
        private final String id;
        private final HikariDataSource pool;
        private final JdbcTemplateLockProvider provider;
        private final Map<String, SimpleLock> held = new ConcurrentHashMap<>();

        ShedLock(String id, Target target) {
            this.id = id;
            pool = pool(target);
            // the table from ShedLock's README for each database
            String time = target.label().equals("postgres") ? "TIMESTAMP" : "TIMESTAMP(3)";
            execute(pool, "CREATE TABLE IF NOT EXISTS shedlock (name VARCHAR(64) NOT NULL, lock_until " + time + " NOT NULL, locked_at " + time
                    + " NOT NULL, locked_by VARCHAR(255) NOT NULL, PRIMARY KEY (name))");
            provider = new JdbcTemplateLockProvider(JdbcTemplateLockProvider.Configuration.builder()
                    .withJdbcTemplate(new JdbcTemplate(pool)).usingDbTime().build());
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void lock(String lockName) throws InterruptedException {
            while (true) {
                Optional<SimpleLock> lock = provider.lock(new LockConfiguration(Instant.now(), lockName, Duration.ofSeconds(30), Duration.ZERO));
                if (lock.isPresent()) {
                    // one holder per name at a time, so the name identifies the hold
                    held.put(lockName, lock.get());
                    return;
                }
                Thread.sleep(1);
            }
        }

        @Override
        public void unlock(String lockName) {
            held.remove(lockName).unlock();
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    /**
     * Spring Integration's JdbcLockRegistry with its defaults (TTL 10 s, 100 ms between tries) on a
     * DefaultLockRepository in its own transactions; INT_LOCK created from the schema in its jar.
     */
    private static final class SpringJdbcLock implements Contender {
        private final String id;
        private final HikariDataSource pool;
        private final DefaultLockRepository repository;
        private final JdbcLockRegistry registry;
        private final Map<String, Lock> locks = new ConcurrentHashMap<>();

        SpringJdbcLock(String id, Target target) {
            this.id = id;
            pool = pool(target);
            execute(pool, intLockTable(target));
            repository = new DefaultLockRepository(pool);
            repository.setTransactionManager(new DataSourceTransactionManager(pool));
            repository.afterPropertiesSet();
            repository.afterSingletonsInstantiated();
            registry = new JdbcLockRegistry(repository);
        }

        /** Returns Spring Integration's own CREATE TABLE INT_LOCK for this database, made idempotent. */
        private static String intLockTable(Target target) {
            String resource = "/org/springframework/integration/jdbc/schema-" + (target.label().equals("postgres") ? "postgresql" : "mysql") + ".sql";
            try (InputStream in = DefaultLockRepository.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("spring-integration-jdbc has no " + resource);
                }
                String schema = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                Matcher table = Pattern.compile("CREATE TABLE INT_LOCK\\b[^;]*", Pattern.CASE_INSENSITIVE).matcher(schema);
                if (!table.find()) {
                    throw new IllegalStateException(resource + " has no CREATE TABLE INT_LOCK");
                }
                return table.group().replaceFirst("(?i)CREATE TABLE INT_LOCK", "CREATE TABLE IF NOT EXISTS INT_LOCK");
            } catch (IOException e) {
                throw new IllegalStateException("cannot read " + resource, e);
            }
        }

        @Override
        public String id() {
            return id;
        }

        @Override
        public void lock(String lockName) {
            locks.computeIfAbsent(lockName, registry::obtain).lock();
        }

        @Override
        public void unlock(String lockName) {
            locks.get(lockName).unlock();
        }

        @Override
        public void close() {
            repository.close();
            pool.close();
        }
    }
}
