package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.distlock.BackendUnavailableException;
import io.distlock.Lease;
import io.distlock.redis.testing.RedisServer;
import io.distlock.servers.FreePorts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locks through {@code rediss://}: a redis-server that also listens with TLS on a port of its own, with a
 * throwaway CA and a server certificate for 127.0.0.1 that openssl makes for this test (skipped, saying so,
 * when openssl is not on PATH). The client trusts the CA the way any Java TLS client does, through the JVM's
 * trust store ({@code javax.net.ssl.trustStore}), and checks the certificate and the host name.
 */
class RedisTlsTest {
    private static final String[] TRUST_PROPERTIES = {"javax.net.ssl.trustStore", "javax.net.ssl.trustStorePassword", "javax.net.ssl.trustStoreType"};

    @TempDir
    static Path dir;

    private static RedisServer server;
    private static int tlsPort;
    private static Path trustStore;
    private static RedisClient rawClient;
    private static StatefulRedisConnection<String, String> raw;

    private final Map<String, String> savedProperties = new HashMap<>();

    @BeforeAll
    static void startATlsServer() throws Exception {
        assumeTrue(onPath("openssl"), "openssl is not on PATH: this test needs it to make a throwaway CA and a server certificate");
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=distlock test CA");
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1");
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=IP:127.0.0.1\n");
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt",
                "-days", "1", "-extfile", "san.ext");
        trustStore = trustStoreWith(dir.resolve("ca.crt"));

        tlsPort = FreePorts.next();
        try {
            server = RedisServer.launch("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", dir.resolve("server.crt").toString(),
                    "--tls-key-file", dir.resolve("server.key").toString(), "--tls-ca-cert-file", dir.resolve("ca.crt").toString(),
                    "--tls-auth-clients", "no");
        } catch (IllegalStateException e) {
            if (String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("tls")) {
                abort("this redis-server cannot serve TLS (built without it): " + e.getMessage());
            }
            throw e;
        }
        rawClient = RedisClient.create(server.uri()); // the plain port, to read the server's own state
        raw = rawClient.connect();
    }

    @AfterAll
    static void stop() {
        if (raw != null) {
            raw.close();
            rawClient.shutdown();
        }
        if (server != null) {
            server.close();
        }
    }

    @AfterEach
    void restoreTrustStore() {
        savedProperties.forEach((key, value) -> {
            if (value == null) {
                System.clearProperty(key);
            } else {
                System.setProperty(key, value);
            }
        });
        savedProperties.clear();
    }

    @Test
    void aLockIsTakenExcludedAndReleasedThroughRedissWithTheServersCaTrusted() throws Exception {
        trustTheTestCa();
        String uri = "rediss://127.0.0.1:" + tlsPort;
        try (RedisLockClient client = RedisLockClient.builder().uri(uri).clientName("tls-holder").build();
                RedisLockClient other = RedisLockClient.create(uri)) {
            long token;
            try (Lease lease = client.getLock("tls-order").acquire(Duration.ofSeconds(5))) {
                token = lease.fencingToken();
                assertThat(raw.sync().get("distlock:{tls-order}")).as("the lock's key, read on the server").startsWith(token + ":");
                assertThat(other.getLock("tls-order").tryAcquire(Duration.ZERO)).as("another client over TLS, while it is held").isEmpty();
                assertThat(clientLine("tls-holder")).as("the holder's connection, as the server lists it")
                        .contains("laddr=127.0.0.1:" + tlsPort + " ");
            }
            try (Lease next = other.getLock("tls-order").acquire(Duration.ofSeconds(5))) {
                assertThat(next.fencingToken()).as("the next holder's token, after the release").isGreaterThan(token);
            }
        }
    }

    @Test
    void aServerWhoseCertificateIsNotTrustedIsRefusedAtConnect() {
        // the JVM's default trust store (cacerts) does not hold the test CA
        assertThatThrownBy(() -> RedisLockClient.builder().uri("rediss://127.0.0.1:" + tlsPort).connectTimeout(Duration.ofSeconds(2)).build())
                .isInstanceOf(BackendUnavailableException.class)
                .hasMessageContaining("cannot connect to Redis at rediss://127.0.0.1:" + tlsPort);
    }

    private void trustTheTestCa() {
        for (String key : TRUST_PROPERTIES) {
            savedProperties.put(key, System.getProperty(key));
        }
        System.setProperty("javax.net.ssl.trustStore", trustStore.toString());
        System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
        System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
    }

    private static String clientLine(String name) {
        for (String line : raw.sync().clientList().split("\n")) {
            if (line.contains(" name=" + name + " ")) {
                return line;
            }
        }
        throw new AssertionError("no connection named " + name + " in CLIENT LIST");
    }

    private static Path trustStoreWith(Path caCertificate) throws Exception {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        try (InputStream in = Files.newInputStream(caCertificate)) {
            store.setCertificateEntry("distlock-test-ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        Path file = dir.resolve("truststore.p12");
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, "changeit".toCharArray());
        }
        return file;
    }

    private static boolean onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return false;
        }
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, program))) {
                return true;
            }
        }
        return false;
    }

    private static void openssl(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
        }
    }
}
