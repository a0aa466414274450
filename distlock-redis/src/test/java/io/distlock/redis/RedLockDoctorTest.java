package io.distlock.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.LockClients;
import io.distlock.OpenOptions;
import io.distlock.redis.testing.RedisServer;
import io.distlock.servers.FreePorts;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The RedLock doctor on real redis-servers: the number of nodes, and every node's settings with the worst one kept. */
class RedLockDoctorTest {
    private static Finding finding(List<Finding> findings, String check) {
        return findings.stream().filter(f -> f.check().equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + check + " in " + findings));
    }

    @Test
    void oneEvictingNodeOfThreeMakesTheWholeUnsafeAndNamesIt() {
        try (RedisServer a = RedisServer.launch("--appendonly", "yes");
                RedisServer b = RedisServer.launch("--appendonly", "yes", "--maxmemory", "10mb", "--maxmemory-policy", "allkeys-lru");
                RedisServer c = RedisServer.launch("--appendonly", "yes")) {
            List<Finding> findings = LockClients.diagnose("redlock://127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port() + ",127.0.0.1:"
                    + c.port(), OpenOptions.defaults());
            assertThat(finding(findings, "redlock.nodes").severity()).isEqualTo(Severity.OK);
            Finding eviction = finding(findings, "redlock.eviction");
            assertThat(eviction.severity()).isEqualTo(Severity.UNSAFE);
            assertThat(eviction.observed()).startsWith("redis://127.0.0.1:" + b.port() + ": ");
            assertThat(finding(findings, "redlock.persistence").severity()).isEqualTo(Severity.OK);
            assertThat(Finding.exitCode(findings)).isEqualTo(2);
        }
    }

    @Test
    void twoNodesOrOneSilentNodeAreRisky() {
        try (RedisServer a = RedisServer.launch("--appendonly", "yes"); RedisServer b = RedisServer.launch("--appendonly", "yes")) {
            String two = "redlock://127.0.0.1:" + a.port() + ",127.0.0.1:" + b.port();
            Finding pair = finding(LockClients.diagnose(two, OpenOptions.defaults()), "redlock.nodes");
            assertThat(pair.severity()).isEqualTo(Severity.RISKY);
            assertThat(pair.why()).contains("fewer than 3");
            int silent = FreePorts.next();
            List<Finding> withSilent = LockClients.diagnose(two + ",127.0.0.1:" + silent, OpenOptions.defaults()
                    .operationTimeout(Duration.ofSeconds(1)));
            Finding nodes = finding(withSilent, "redlock.nodes");
            assertThat(nodes.severity()).isEqualTo(Severity.RISKY);
            assertThat(nodes.observed()).contains("not answering: redis://127.0.0.1:" + silent);
            assertThat(finding(withSilent, "redlock.eviction").severity()).as("the answering nodes are still examined").isEqualTo(Severity.OK);
        }
    }
}
