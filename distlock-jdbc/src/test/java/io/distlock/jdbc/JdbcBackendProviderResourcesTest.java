package io.distlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.spi.LockBackendProvider;
import java.lang.reflect.Proxy;
import java.net.PasswordAuthentication;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * What the jdbc backend takes through the registry besides the URL, for what a URI cannot carry (the starter opens it
 * this way): the application's DataSource, credentials, and {@code ?createTable=false}; on H2 in this JVM.
 */
class JdbcBackendProviderResourcesTest {

    /** An H2 DataSource that counts the connections it hands out. */
    private static DataSource counting(String url, AtomicInteger handedOut) {
        org.h2.jdbcx.JdbcDataSource h2 = new org.h2.jdbcx.JdbcDataSource();
        h2.setURL(url);
        h2.setUser("sa");
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
            if (method.getName().equals("getConnection")) {
                handedOut.incrementAndGet();
            }
            return method.invoke(h2, args);
        });
    }

    @Test
    void aDataSourceOfferedIsWhereTheClientTakesItsConnections() throws Exception {
        String url = "jdbc:h2:mem:resources-ds;DB_CLOSE_DELAY=-1";
        AtomicInteger handedOut = new AtomicInteger();
        try (LockClient client = LockClients.open(url, OpenOptions.defaults().namespace("app_locks").resource(counting(url, handedOut)))) {
            try (Lease lease = client.getLock("order:1").acquire(Duration.ofSeconds(5))) {
                assertThat(lease.fencingToken()).isEqualTo(1);
            }
        }
        assertThat(handedOut.get()).as("connections the DataSource handed out").isPositive();
        try (Connection admin = DriverManager.getConnection(url, "sa", ""); Statement statement = admin.createStatement();
                ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM app_locks")) {
            rows.next();
            assertThat(rows.getInt(1)).as("rows of the namespace's table").isEqualTo(1);
        }
    }

    @Test
    void createTableFalseRefusesAMissingTableAndCredentialsDoNotGoWithADataSource() {
        String url = "jdbc:h2:mem:resources-create;DB_CLOSE_DELAY=-1";
        assertThatThrownBy(() -> LockClients.open(url + "?createTable=false", OpenOptions.defaults().namespace("missing_locks")))
                .hasMessageContaining("missing_locks does not exist");
        assertThatThrownBy(() -> LockClients.open(url + "?createTable=maybe", OpenOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("createTable").hasMessageContaining("true or false");
        assertThatThrownBy(() -> LockClients.open(url, OpenOptions.defaults().resource(counting(url, new AtomicInteger()))
                .resource(new PasswordAuthentication("sa", new char[0])))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("DataSource");
    }

    @Test
    void credentialsOfferedLogTheClientIn() throws Exception {
        String url = "jdbc:h2:mem:resources-user;DB_CLOSE_DELAY=-1";
        try (Connection admin = DriverManager.getConnection(url, "sa", ""); Statement statement = admin.createStatement()) {
            statement.execute("CREATE USER locker PASSWORD 'secret' ADMIN");
            try (LockClient client = LockClients.open(url, OpenOptions.defaults().resource(new PasswordAuthentication("locker", "secret".toCharArray())));
                    Lease lease = client.getLock("order:2").acquire(Duration.ofSeconds(5));
                    ResultSet sessions = statement.executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE USER_NAME = 'LOCKER'")) {
                sessions.next();
                assertThat(sessions.getInt(1)).as("sessions of user locker: the client's").isPositive();
            }
            assertThatThrownBy(() -> LockClients.open(url, OpenOptions.defaults().resource(new PasswordAuthentication("locker", "wrong".toCharArray()))))
                    .hasMessageContaining("Wrong user name or password");
        }
    }

    @Test
    void aNamespaceIsRemovedThroughTheDataSourceOrWithTheCredentialsOfferedAsOpenConnects() throws Exception {
        String url = "jdbc:h2:mem:resources-remove;DB_CLOSE_DELAY=-1";
        LockBackendProvider provider = LockClients.provider("jdbc");
        AtomicInteger handedOut = new AtomicInteger();
        DataSource dataSource = counting(url, handedOut);
        try (LockClient client = LockClients.open(url, OpenOptions.defaults().namespace("pooled_locks").resource(dataSource))) {
            client.getFairLock("order:3").acquire(Duration.ofSeconds(5)).close();
        }
        int before = handedOut.get();
        assertThat(provider.removeNamespace(url + "?createTable=false", OpenOptions.defaults().namespace("pooled_locks").resource(dataSource)))
                .as("the lock table and the queue table").isEqualTo(2);
        assertThat(handedOut.get() - before).as("connections the DataSource handed out for the removal").isOne();
        try (Connection admin = DriverManager.getConnection(url, "sa", ""); Statement statement = admin.createStatement()) {
            statement.execute("CREATE USER remover PASSWORD 'secret' ADMIN");
            PasswordAuthentication remover = new PasswordAuthentication("remover", "secret".toCharArray());
            try (LockClient client = LockClients.open(url, OpenOptions.defaults().namespace("users_locks").resource(remover))) {
                client.getLock("order:4").acquire(Duration.ofSeconds(5)).close();
            }
            assertThatThrownBy(() -> provider.removeNamespace(url, OpenOptions.defaults().namespace("users_locks")
                    .resource(new PasswordAuthentication("remover", "wrong".toCharArray())))).hasMessageContaining("Wrong user name or password");
            assertThatThrownBy(() -> provider.removeNamespace(url, OpenOptions.defaults().namespace("users_locks").resource(remover)
                    .resource(dataSource))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DataSource");
            assertThatThrownBy(() -> provider.removeNamespace(url + "?createTable=maybe", OpenOptions.defaults().namespace("users_locks")))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("createTable");
            assertThat(provider.removeNamespace(url, OpenOptions.defaults().namespace("users_locks").resource(remover))).isEqualTo(2);
        }
    }
}
