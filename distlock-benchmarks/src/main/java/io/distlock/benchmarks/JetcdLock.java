package io.distlock.benchmarks;

import io.distlock.cli.bench.Contender;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * jetcd's own Lock API, as its README shows it: one lease kept alive by jetcd's streaming keep-alive, and
 * the server-side Lock RPC (which blocks on the server until the lock is free) with that lease.
 */
final class JetcdLock implements Contender {
    private final Client client;
    private final long lease;
    private final CloseableClient keepAlive;
    private final ThreadLocal<Map<String, ByteSequence>> held = ThreadLocal.withInitial(HashMap::new);

    JetcdLock(String endpoints) {
        client = Client.builder().endpoints(endpoints.split(",")).build();
        try {
            lease = client.getLeaseClient().grant(30).get(20, TimeUnit.SECONDS).getID();
        } catch (Exception e) {
            client.close();
            throw new IllegalStateException("jetcd: cannot grant a lease at " + endpoints, e);
        }
        keepAlive = client.getLeaseClient().keepAlive(lease, new StreamObserver<LeaseKeepAliveResponse>() {
            @Override
            public void onNext(LeaseKeepAliveResponse response) {}

            @Override
            public void onError(Throwable failure) {}

            @Override
            public void onCompleted() {}
        });
    }

    @Override
    public String id() {
        return "jetcd-lock";
    }

    @Override
    public void lock(String lockName) throws Exception {
        ByteSequence key = client.getLockClient().lock(ByteSequence.from("jetcd-bench/" + lockName, StandardCharsets.UTF_8), lease)
                .get().getKey();
        held.get().put(lockName, key);
    }

    @Override
    public void unlock(String lockName) throws Exception {
        client.getLockClient().unlock(held.get().remove(lockName)).get();
    }

    @Override
    public void close() {
        keepAlive.close();
        client.close();
    }
}
