package io.distlock.benchmarks;

import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockClients;
import io.distlock.cli.bench.Contender;
import io.distlock.servers.deployment.Deployments;
import io.distlock.servers.deployment.ServerType.StartedServer;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.CompactOption;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * What an etcd lock costs as the history of its name grows between compactions. distlock-etcd creates a new key per
 * acquisition ({@code <lease>-<owner id>}, the owner id unique per acquisition), and etcd keeps a deleted key in its
 * in-memory index until a compaction removes it; the acquire's read of the name's oldest key walks every key the name
 * ever had since. jetcd's Lock API keys a lock by name and session lease, one key per session, reused. This runs one
 * thread acquiring and releasing one name with each, in batches, printing each batch's acquire+release p50 against the
 * acquisitions of that name so far; then compacts and runs one more batch.
 *
 * <p>{@code java -cp distlock-benchmarks/target/distlock-benchmarks.jar io.distlock.benchmarks.EtcdHistoryCost [batches] [cycles per batch]}
 * (default 10 batches of 5,000: a few minutes; starts its own etcd, which needs an etcd binary).
 */
public final class EtcdHistoryCost {
    private EtcdHistoryCost() {}

    public static void main(String[] args) throws Exception {
        int batches = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int cycles = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        System.err.println("starting etcd ...");
        try (StartedServer server = Deployments.server("etcd").launch();
                LockClient distlock = LockClients.open(server.target());
                Contender jetcd = new JetcdLock(BenchMain.httpEndpoints(server.target()));
                Client admin = Client.builder().endpoints(BenchMain.httpEndpoints(server.target()).split(",")).build()) {
            System.out.printf(Locale.ROOT, "%-14s %12s %14s%n", "implementation", "acquisitions", "cycle p50 us");
            for (int batch = 1; batch <= batches + 1; batch++) {
                if (batch == batches + 1) {
                    long revision = admin.getKVClient().get(ByteSequence.from("x", StandardCharsets.UTF_8)).get().getHeader().getRevision();
                    admin.getKVClient().compact(revision, CompactOption.newBuilder().withCompactPhysical(true).build()).get();
                    System.out.println("compacted at revision " + revision);
                }
                long[] ours = new long[cycles];
                long[] theirs = new long[cycles];
                for (int i = 0; i < cycles; i++) {
                    long start = System.nanoTime();
                    try (Lease lease = distlock.getLock("history").acquire()) {
                        lease.fencingToken();
                    }
                    ours[i] = System.nanoTime() - start;
                    start = System.nanoTime();
                    jetcd.lock("history");
                    jetcd.unlock("history");
                    theirs[i] = System.nanoTime() - start;
                }
                System.out.printf(Locale.ROOT, "%-14s %12d %14d%n", "distlock-etcd", (long) batch * cycles, median(ours) / 1000);
                System.out.printf(Locale.ROOT, "%-14s %12d %14d%n", "jetcd-lock", (long) batch * cycles, median(theirs) / 1000);
            }
        }
    }

    private static long median(long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
