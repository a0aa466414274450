package io.distlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.BackendUnavailableException;
import io.distlock.DoctorCheck;
import io.distlock.Finding;
import io.distlock.Finding.Severity;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.LockException;
import io.distlock.LockListener;
import io.distlock.LockOptions;
import io.distlock.OpenOptions;
import io.distlock.etcd.testing.EtcdCluster;
import io.distlock.etcd.testing.EtcdClusterExtension;
import io.distlock.etcd.testing.EtcdMember;
import io.distlock.servers.Await;
import io.distlock.servers.FreePorts;
import io.etcd.jetcd.Auth;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.api.AlarmRequest;
import io.etcd.jetcd.api.AlarmType;
import io.etcd.jetcd.api.MaintenanceGrpc;
import io.etcd.jetcd.api.StatusRequest;
import io.etcd.jetcd.auth.Permission;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The etcd doctor against real etcd clusters configured both ways for each finding, asserting the exact severity. The
 * test clusters run with {@code --election-timeout 500} on their command line. The judgements on what no test cluster
 * shows (a command line without the election timeout, a leader that stopped answering) are in {@link EtcdDoctorRulesTest}.
 */
class EtcdDoctorTest {
    private static final Duration SOON = Duration.ofSeconds(30);
    @RegisterExtension
    static final EtcdClusterExtension single = new EtcdClusterExtension();

    private static List<Finding> diagnose(String target) {
        return LockClients.diagnose(target, OpenOptions.defaults());
    }

    private static Finding finding(List<Finding> findings, String check) {
        return findings.stream().filter(f -> f.check().equals(check)).findFirst()
                .orElseThrow(() -> new AssertionError("no finding " + check + " in " + findings));
    }

    private static Severity severity(String target, String check) {
        return finding(diagnose(target), check).severity();
    }

    @Test
    void oneMemberIsRiskyAndThreeAnsweringMembersWithAuthenticationAreAllOkUntilOneStops() throws Exception {
        List<Finding> alone = diagnose(single.cluster().registryTarget());
        assertThat(finding(alone, "etcd.members").severity()).isEqualTo(Severity.RISKY);
        assertThat(finding(alone, "etcd.members").why()).contains("one member");
        assertThat(finding(alone, "etcd.leader").severity()).isEqualTo(Severity.OK);
        assertThat(finding(alone, "etcd.version").observed()).startsWith("etcd 3.");
        assertThat(Finding.exitCode(alone)).isEqualTo(1);
        try (EtcdCluster three = EtcdCluster.launch(3, false)) {
            enableAuthentication(three);
            String target = three.registryTarget().replace("etcd://", "etcd://app:app-secret@");
            List<Finding> healthy = diagnose(target);
            assertThat(healthy).extracting(Finding::check).as("one finding per check, in the catalogue's order")
                    .containsExactlyElementsOf(EtcdDoctor.CHECKS.stream().map(DoctorCheck::id).toList());
            assertThat(healthy).as("every finding of a healthy cluster").allSatisfy(f -> assertThat(f.severity()).as(f.toString()).isEqualTo(Severity.OK));
            assertThat(Finding.exitCode(healthy)).isZero();
            assertThat(finding(healthy, "etcd.leader").observed()).matches("leader m[012] .*");
            three.member(2).stop(); // a leader hands its leadership on first
            three.awaitLeader();
            List<Finding> oneStopped = diagnose(target);
            Finding members = finding(oneStopped, "etcd.members");
            assertThat(members.severity()).isEqualTo(Severity.RISKY);
            assertThat(members.why()).contains("m2 at " + three.member(2).endpoint()).contains("survives the loss of 0 more");
            assertThat(finding(oneStopped, "etcd.leader").severity()).as("two of three still elect").isEqualTo(Severity.OK);
            assertThat(Finding.exitCode(oneStopped)).isEqualTo(1);
        }
    }

    @Test
    void anEvenCountIsRiskyAndSoIsAClusterWithoutLeader() {
        try (EtcdCluster two = EtcdCluster.launch(2, false)) {
            List<Finding> even = diagnose(two.registryTarget());
            assertThat(finding(even, "etcd.members").severity()).isEqualTo(Severity.RISKY);
            assertThat(finding(even, "etcd.members").why()).contains("an even count").contains("losing either stops it");
            assertThat(finding(even, "etcd.leader").severity()).isEqualTo(Severity.OK);
            two.member(1).stop();
            Await.until(SOON, "m0 has no leader", () -> !two.member(0).hasLeader());
            List<Finding> leaderless = LockClients.diagnose(two.registryTarget(), OpenOptions.defaults().operationTimeout(Duration.ofSeconds(1)));
            Finding leader = finding(leaderless, "etcd.leader");
            assertThat(leader.severity()).as(leader.observed()).isEqualTo(Severity.RISKY);
            assertThat(leader.observed()).contains("m0 names no leader");
            assertThat(finding(leaderless, "etcd.members").why()).contains("only 1 of 2 answer");
        }
    }

    @Test
    void aSessionTtlUnderFiveElectionTimeoutsIsRiskyAndALongerOneIsOk() {
        String target = single.cluster().registryTarget();
        Finding shortTtl = finding(diagnose(target + "?sessionTtl=2s"), "etcd.session-ttl");
        assertThat(shortTtl.severity()).isEqualTo(Severity.RISKY);
        assertThat(shortTtl.observed()).contains("sessionTtl 2 s").contains("election timeout 500 ms").contains("4.0 election timeouts");
        assertThat(severity(target + "?sessionTtl=3s", "etcd.session-ttl")).as("3 s is 6 election timeouts of 500 ms").isEqualTo(Severity.OK);
        assertThat(severity(target, "etcd.session-ttl")).as("the default 15 s").isEqualTo(Severity.OK);
        OpenOptions shortLease = OpenOptions.defaults().lockOptions(LockOptions.builder().leaseTime(Duration.ofSeconds(2)).build());
        Finding leaseTime = finding(LockClients.diagnose(target, shortLease), "etcd.session-ttl");
        assertThat(leaseTime.severity()).as("a shorter lease time counts").isEqualTo(Severity.RISKY);
        assertThat(leaseTime.observed()).startsWith("leaseTime 2 s (sessionTtl 15 s)");
    }

    @Test
    void authenticationOffIsRiskyAndOnWithAUserWhoMayReadTheNamespaceIsOk() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.launch()) {
            String target = cluster.registryTarget();
            String app = target.replace("etcd://", "etcd://app:app-secret@");
            Finding off = finding(diagnose(target), "etcd.auth");
            assertThat(off.severity()).isEqualTo(Severity.RISKY);
            assertThat(off.observed()).startsWith("authentication off");
            assertThat(off.why()).contains("etcdctl del --prefix distlock/");
            addUsers(cluster);
            Finding credentialsWhileOff = finding(diagnose(app), "etcd.auth");
            assertThat(credentialsWhileOff.severity()).isEqualTo(Severity.RISKY);
            assertThat(credentialsWhileOff.observed()).contains("authentication is not enabled");
            assertThatThrownBy(() -> LockClients.open(app).close()).as("the application cannot connect either").isInstanceOf(LockException.class);

            enable(cluster);
            Finding on = finding(diagnose(app), "etcd.auth");
            assertThat(on.severity()).as(on.observed()).isEqualTo(Severity.OK);
            assertThat(on.observed()).isEqualTo("authentication on; user app may read distlock/");
            assertThat(finding(diagnose(target), "etcd.auth").observed()).isEqualTo("authentication on; the target has no user");
            assertThat(severity(target, "etcd.auth")).isEqualTo(Severity.RISKY);
            assertThat(finding(diagnose(target), "etcd.members").severity()).as("read without a user all the same").isEqualTo(Severity.RISKY);
            Finding wrong = finding(diagnose(target.replace("etcd://", "etcd://app:wrong@")), "etcd.auth");
            assertThat(wrong.severity()).isEqualTo(Severity.RISKY);
            assertThat(wrong.observed()).contains("invalid user ID or password");
            Finding stranger = finding(diagnose(target.replace("etcd://", "etcd://stranger:stranger-secret@")), "etcd.auth");
            assertThat(stranger.severity()).isEqualTo(Severity.RISKY);
            assertThat(stranger.observed()).contains("may not read distlock/").contains("permission denied");
        }
    }

    @Test
    void theHistoryKeptIsReadFromTheMetricsAndACompactionShowsInIt() throws Exception {
        EtcdCluster cluster = single.cluster();
        try (LockClient client = EtcdLockClient.builder().endpoints(cluster.endpoints()).build()) {
            for (int i = 0; i < 3; i++) {
                client.getLock("history").acquire(SOON).close();
            }
        }
        Finding before = finding(diagnose(cluster.registryTarget()), "etcd.history");
        assertThat(before.severity()).isEqualTo(Severity.OK);
        assertThat(before.observed()).containsPattern("^[\\d,]+ revisions kept \\(revision [\\d,]+, ");
        try (RawEtcd raw = new RawEtcd(cluster.endpoints())) {
            long revision = raw.client().getKVClient().get(bytes("any")).get(10, TimeUnit.SECONDS).getHeader().getRevision();
            raw.client().getKVClient().compact(revision).get(10, TimeUnit.SECONDS);
            Finding after = finding(diagnose(cluster.registryTarget()), "etcd.history");
            assertThat(after.observed()).as("the doctor writes nothing: no revision after the compaction")
                    .isEqualTo(String.format(java.util.Locale.ROOT, "0 revisions kept (revision %,d, compacted at %,d)", revision, revision));
        }
    }

    @Test
    void aNoSpaceAlarmIsRiskyWhileHeldLocksStayHeldAndNoAlarmIsOk() throws Exception {
        try (EtcdCluster cluster = EtcdCluster.launch()) {
            Finding none = finding(diagnose(cluster.registryTarget()), "etcd.alarms");
            assertThat(none.severity()).isEqualTo(Severity.OK);
            assertThat(none.observed()).startsWith("no alarm, database ").contains(" quota");
            AtomicInteger renewals = new AtomicInteger();
            try (LockClient client = EtcdLockClient.builder().endpoints(cluster.endpoints()).sessionTtl(Duration.ofSeconds(3))
                    .operationTimeout(Duration.ofSeconds(2)).listener(new LockListener() {
                        @Override
                        public void renewed(Lease lease) {
                            renewals.incrementAndGet();
                        }
                    }).build()) {
                Lease held = client.getLock("held").acquire(SOON);
                raiseNoSpace(cluster);
                Finding alarm = finding(diagnose(cluster.registryTarget()), "etcd.alarms");
                assertThat(alarm.severity()).isEqualTo(Severity.RISKY);
                assertThat(alarm.observed()).startsWith("NOSPACE on m0");
                // what the finding says: acquires fail, a held lock stays held and can be released
                int before = renewals.get();
                Await.until(SOON, "two renewals under the alarm", () -> renewals.get() >= before + 2);
                assertThat(held.isValid()).isTrue();
                assertThatThrownBy(() -> client.getLock("new").acquire(Duration.ofSeconds(1))).isInstanceOf(LockException.class)
                        .hasMessageContaining("database space exceeded");
                held.close();
                assertThat(client.getLock("held").isLocked()).isFalse();
            }
        }
    }

    @Test
    void anUnreachableClusterIsReportedAsSuchWithoutItsPassword() {
        int port = FreePorts.next();
        assertThatThrownBy(() -> LockClients.diagnose("etcd://app:secret@127.0.0.1:" + port, OpenOptions.defaults().operationTimeout(Duration.ofSeconds(1))))
                .isInstanceOf(BackendUnavailableException.class).hasMessageContaining("127.0.0.1:" + port).hasMessageNotContaining("secret");
    }

    private static ByteSequence bytes(String text) {
        return ByteSequence.from(text, StandardCharsets.UTF_8);
    }

    /** Adds root, app (its role may read and write distlock/) and stranger (no role); authentication stays off. */
    private static void addUsers(EtcdCluster cluster) throws Exception {
        try (RawEtcd raw = new RawEtcd(cluster.endpoints())) {
            Auth auth = raw.client().getAuthClient();
            auth.userAdd(bytes("root"), bytes("root-secret")).get(10, TimeUnit.SECONDS);
            auth.roleAdd(bytes("root")).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("root"), bytes("root")).get(10, TimeUnit.SECONDS);
            auth.roleAdd(bytes("locks")).get(10, TimeUnit.SECONDS);
            auth.roleGrantPermission(bytes("locks"), bytes("distlock/"), bytes("distlock0"), Permission.Type.READWRITE).get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes("app"), bytes("app-secret")).get(10, TimeUnit.SECONDS);
            auth.userGrantRole(bytes("app"), bytes("locks")).get(10, TimeUnit.SECONDS);
            auth.userAdd(bytes("stranger"), bytes("stranger-secret")).get(10, TimeUnit.SECONDS);
        }
    }

    private static void enable(EtcdCluster cluster) throws Exception {
        try (RawEtcd raw = new RawEtcd(cluster.endpoints())) {
            raw.client().getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
        }
        // each member turns authentication on when it applies the change: one that lags still answers a serializable
        // read without a user (as the doctor's probe makes), so wait until every member refuses one
        for (EtcdMember member : cluster.members()) {
            try (io.etcd.jetcd.Client anonymous = io.etcd.jetcd.Client.builder().endpoints(member.endpoint()).build()) {
                io.etcd.jetcd.options.GetOption serializable = io.etcd.jetcd.options.GetOption.builder().isPrefix(true).withCountOnly(true)
                        .withSerializable(true).build();
                Await.until(SOON, member + " refuses a read without a user", () -> {
                    try {
                        anonymous.getKVClient().get(bytes("distlock/"), serializable).get(10, TimeUnit.SECONDS);
                        return false;
                    } catch (java.util.concurrent.ExecutionException refused) {
                        return !String.valueOf(refused.getCause()).contains("UNAVAILABLE"); // refused, not unreachable
                    } catch (java.util.concurrent.TimeoutException e) {
                        return false;
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new AssertionError("interrupted", e);
                    }
                });
            }
        }
    }

    private static void enableAuthentication(EtcdCluster cluster) throws Exception {
        addUsers(cluster);
        enable(cluster);
    }

    /** Raises the NOSPACE alarm as etcd does when the database reaches its quota (etcd's own tests do the same). */
    private static void raiseNoSpace(EtcdCluster cluster) {
        ManagedChannel channel = NettyChannelBuilder.forAddress("127.0.0.1", cluster.member(0).clientPort()).usePlaintext().build();
        try {
            MaintenanceGrpc.MaintenanceBlockingStub maintenance = MaintenanceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
            long member = maintenance.status(StatusRequest.getDefaultInstance()).getHeader().getMemberId();
            maintenance.alarm(AlarmRequest.newBuilder().setAction(AlarmRequest.AlarmAction.ACTIVATE).setMemberID(member)
                    .setAlarm(AlarmType.NOSPACE).build());
        } finally {
            channel.shutdownNow();
        }
    }
}
