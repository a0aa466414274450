package io.distlock.fencing.http;

import io.distlock.fencing.FencingTokens;
import io.distlock.fencing.sql.FenceTable;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** The highest token per resource in a fence table, each check a transaction of its own. */
final class SqlTokenStore implements FencingTokenStore {
    private final DataSource dataSource;
    private final FenceTable fences;

    SqlTokenStore(DataSource dataSource, FenceTable fences) {
        this.dataSource = dataSource;
        this.fences = fences;
    }

    @Override
    public void accept(String resource, long token) {
        FencingTokens.requireValid(token);
        Resources.require(resource);
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            try {
                fences.check(connection, resource, token);
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                connection.rollback();
                throw e;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the fencing token store " + fences + " could not record token " + token + " for '" + resource + "': "
                    + e.getMessage(), e);
        }
    }

    @Override
    public String toString() {
        return "SQL fencing token store (" + fences + ")";
    }
}
