package io.distlock.jdbc;

import java.lang.reflect.Method;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * The maximum size of an application's connection pool, read by the getter its class is known by: distlock-jdbc
 * depends on no pool, so the doctor asks by name.
 *
 * @param property the pool's name for its maximum, e.g. {@code maximumPoolSize}
 * @param maximum the maximum number of connections; negative when the pool sets no limit (DBCP2's -1)
 */
record PoolCapacity(String property, int maximum) {
    /** The getters of the maximum, and the pools that name it so (a class may match more than one; the first wins). */
    private static final List<String> GETTERS = List.of(
            "getMaximumPoolSize", // HikariCP
            "getMaxTotal", // Apache Commons DBCP2
            "getMaxActive", // Tomcat JDBC pool
            "getMaxPoolSize", // c3p0, Oracle UCP
            "getPoolMaxSize"); // Vibur DBCP

    /** Returns the maximum of {@code dataSource}, or empty if its class has none of the known getters (or it fails). */
    static Optional<PoolCapacity> of(DataSource dataSource) {
        for (String getter : GETTERS) {
            Method method;
            try {
                method = dataSource.getClass().getMethod(getter);
            } catch (NoSuchMethodException e) {
                continue;
            }
            if (method.getReturnType() != int.class) {
                continue;
            }
            try {
                int maximum = (int) method.invoke(dataSource);
                String property = Character.toLowerCase(getter.charAt(3)) + getter.substring(4);
                return Optional.of(new PoolCapacity(property, maximum));
            } catch (ReflectiveOperationException | RuntimeException e) {
                return Optional.empty(); // not accessible (a module that does not open it), or the pool refused: not known
            }
        }
        return Optional.empty();
    }
}
