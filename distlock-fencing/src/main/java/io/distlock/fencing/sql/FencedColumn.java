package io.distlock.fencing.sql;

import io.distlock.fencing.FencingContext;
import io.distlock.fencing.FencingTokens;
import io.distlock.fencing.StaleTokenException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Arrays;

/**
 * A fencing guard on a token column of the application's own rows: an update is one statement that also requires the
 * row's token to be at most the writer's, and sets it to the writer's. A holder whose lease ended and whose lock was
 * granted since to another (who wrote with its higher token) finds no row to update, and gets a
 * {@link StaleTokenException}; the newer holder's write stands.
 *
 * <pre>{@code
 * FencedColumn stock = FencedColumn.of("stock", "fence");  // ALTER TABLE stock ADD COLUMN fence BIGINT
 * try (Lease lease = locks.getLock("sku-42").acquire(Duration.ofSeconds(5))) {
 *     stock.update(connection, lease.fencingToken(), "quantity = quantity - ?", "sku = ?", 1, "sku-42");
 * }
 * }</pre>
 *
 * <p>The same holder may write several times with its token (the check is {@code fence <= token}); a row whose
 * column is {@code NULL} (never fenced) takes any token. The column is a {@code BIGINT}. The guard works on any
 * {@link Connection}: in auto-commit mode the update is its own transaction; inside the caller's transaction it is
 * part of it (with Spring's {@code JdbcTemplate}: {@code jdbc.execute((ConnectionCallback<Integer>) c -> stock.update(c, ...))}).
 * Fragments are the caller's SQL: pass values as {@code ?} parameters, never by concatenating them in.
 */
public final class FencedColumn {
    private final String table;
    private final String column;

    private FencedColumn(String table, String column) {
        this.table = table;
        this.column = column;
    }

    /**
     * Returns the guard of {@code table}'s token column {@code column}.
     *
     * @throws IllegalArgumentException if either is not a plain SQL identifier
     */
    public static FencedColumn of(String table, String column) {
        return new FencedColumn(SqlNames.require(table, "table"), SqlNames.require(column, "token column"));
    }

    /**
     * Updates the rows {@code where} selects with {@code set}, if their token is at most {@code token}, and sets
     * their token to {@code token}, in one statement: {@code UPDATE table SET <set>, column = ? WHERE (<where>) AND
     * (column IS NULL OR column <= ?)}.
     *
     * @param set the assignments, such as {@code "quantity = quantity - ?"}
     * @param where the condition that selects the rows, such as {@code "sku = ?"}
     * @param parameters the values of {@code set}'s parameters, then {@code where}'s
     * @return how many rows were updated; 0 only if no row matches {@code where}
     * @throws StaleTokenException if a row matches {@code where} but carries a higher token: nothing was updated
     * @throws IllegalArgumentException if {@code token} is not positive, or the fragments do not take as many
     *     parameters as given
     * @throws SQLException as the database reports it
     */
    public int update(Connection connection, long token, String set, String where, Object... parameters) throws SQLException {
        return updateWith(connection, token, set, where, parameters);
    }

    /**
     * As {@link #update(Connection, long, String, String, Object...)}, with the token of the lock this thread works
     * under: inside a Spring {@code @WithLock} method, its lease's token (see {@link FencingContext}).
     *
     * @throws IllegalStateException if this thread works under no lock: nothing ran
     */
    public int update(Connection connection, String set, String where, Object... parameters) throws SQLException {
        return updateWith(connection, FencingContext.currentToken(), set, where, parameters);
    }

    private int updateWith(Connection connection, long token, String set, String where, Object... parameters) throws SQLException {
        FencingTokens.requireValid(token);
        int setParameters = SqlNames.parameters(SqlNames.requireFragment(set, "set"));
        int whereParameters = SqlNames.parameters(SqlNames.requireFragment(where, "where"));
        if (setParameters + whereParameters != parameters.length) {
            throw new IllegalArgumentException("set and where take " + (setParameters + whereParameters) + " parameters (" + setParameters
                    + " and " + whereParameters + "), got " + parameters.length);
        }
        Object[] whereValues = Arrays.copyOfRange(parameters, setParameters, parameters.length);
        int updated;
        try (PreparedStatement update = connection.prepareStatement("UPDATE " + table + " SET " + set + ", " + column + " = ? WHERE ("
                + where + ") AND (" + column + " IS NULL OR " + column + " <= ?)")) {
            int index = 1;
            for (int i = 0; i < setParameters; i++) {
                update.setObject(index++, parameters[i]);
            }
            update.setLong(index++, token);
            for (Object value : whereValues) {
                update.setObject(index++, value);
            }
            update.setLong(index, token);
            updated = update.executeUpdate();
        }
        if (updated > 0) {
            return updated;
        }
        long highest = highestToken(connection, where, whereValues);
        if (highest > token) {
            throw new StaleTokenException(table + " where " + where + " " + Arrays.toString(whereValues), token, highest);
        }
        return 0;
    }

    /**
     * Returns the highest token of the rows {@code where} selects (0 if none has one), read with a locking read: in
     * MySQL's default isolation a plain read would see the transaction's snapshot, older than the row the update saw.
     */
    private long highestToken(Connection connection, String where, Object[] values) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT " + column + " FROM " + table + " WHERE (" + where + ") FOR UPDATE")) {
            for (int i = 0; i < values.length; i++) {
                select.setObject(i + 1, values[i]);
            }
            long highest = 0;
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    highest = Math.max(highest, rows.getLong(1));
                }
            }
            return highest;
        }
    }

    @Override
    public String toString() {
        return "FencedColumn[" + table + "." + column + "]";
    }
}
