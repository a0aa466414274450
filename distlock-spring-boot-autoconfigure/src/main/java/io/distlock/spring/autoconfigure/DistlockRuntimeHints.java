package io.distlock.spring.autoconfigure;

import io.distlock.spring.WithLock;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What distlock reads reflectively or as resources at run time, for an application built ahead of time (Spring AOT,
 * GraalVM native images): the Redis and fencing Lua scripts and the service files that find the engine and the
 * backends; the root object of {@code @WithLock} key expressions; the connection pools whose maximum size the SQL
 * doctor reads by their getters; the PostgreSQL driver class the SQL client looks for. The interfaces and superclasses
 * that declare the application's {@code @WithLock} methods are registered per bean by {@link WithLockBeansAotProcessor}.
 */
public class DistlockRuntimeHints implements RuntimeHintsRegistrar {
    /** The pools {@code jdbc.connections} reads (distlock-jdbc's PoolCapacity), by class name. */
    static final String[] POOLS = {
        "com.zaxxer.hikari.HikariDataSource",
        "org.apache.commons.dbcp2.BasicDataSource",
        "org.apache.tomcat.jdbc.pool.DataSource",
        "com.mchange.v2.c3p0.ComboPooledDataSource",
        "oracle.ucp.jdbc.PoolDataSourceImpl",
        "org.vibur.dbcp.ViburDBCPDataSource",
    };

    /** The root object of {@code @WithLock} key expressions (package-private in io.distlock.spring). */
    static final TypeReference KEY_ROOT = TypeReference.of("io.distlock.spring.LockNameExpressions$Root");

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        hints.resources().registerPattern("io/distlock/redis/*.lua");
        hints.resources().registerPattern("io/distlock/fencing/redis/*.lua");
        hints.resources().registerPattern("META-INF/services/io.distlock.spi.EngineFactory");
        hints.resources().registerPattern("META-INF/services/io.distlock.spi.LockBackendProvider");
        hints.reflection().registerType(KEY_ROOT, MemberCategory.INVOKE_PUBLIC_METHODS, MemberCategory.DECLARED_FIELDS);
        hints.reflection().registerType(WithLock.class, MemberCategory.INVOKE_DECLARED_METHODS);
        for (String pool : POOLS) {
            hints.reflection().registerTypeIfPresent(classLoader, pool, MemberCategory.INVOKE_PUBLIC_METHODS);
        }
        hints.reflection().registerTypeIfPresent(classLoader, "org.postgresql.PGConnection");
    }
}
