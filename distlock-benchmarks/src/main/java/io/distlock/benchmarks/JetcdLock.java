package io.distlock.benchmarks;

import io.distlock.cli.bench.Contender;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.lease.LeaseKeepAliveResponse;
import io.etcd.jetcd.support.CloseableClient;
import io.grpc.stub.StreamObserver;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * jetcd's own Lock API, as its README shows it: a lease kept alive by jetcd's streaming keep-alive, and
 * the server-side Lock RPC (which blocks on the server until the lock is free) with that lease. The
 * server's lock key is the name plus the lease id, so two callers with one lease would both "hold" it:
 * each thread gets a lease of its own, granted on its first lock.
 */
final class JetcdLock implements Contender {
    private final Client client;
    private final List<CloseableClient> keepAlives = new CopyOnWriteArrayList<>();
    private final ThreadLocal<Long> lease = ThreadLocal.withInitial(this::grantLease);
    private final ThreadLocal<Map<String, ByteSequence>> held = ThreadLocal.withInitial(HashMap::new);

    JetcdLock(String endpoints) {
        client = Client.builder().endpoints(endpoints.split(",")).build();
    }

    private long grantLease() {
        long id;
        try {
            id = client.getLeaseClient().grant(30).get(20, TimeUnit.SECONDS).getID();
        } catch (Exception e) {
            throw new IllegalStateException("jetcd: cannot grant a lease", e);
        }
        keepAlives.add(client.getLeaseClient().keepAlive(id, new StreamObserver<LeaseKeepAliveResponse>() {
            @Override
            public void onNext(LeaseKeepAliveResponse response) {}

            @Override
            public void onError(Throwable failure) {}

            @Override
            public void onCompleted() {}
        }));
        return id;
    }

    @Override
    public String id() {
        return "jetcd-lock";
    }

    @Override
    public void lock(String lockName) throws Exception {
        ByteSequence key = client.getLockClient().lock(ByteSequence.from("jetcd-bench/" + lockName, StandardCharsets.UTF_8), lease.get())
                .get().getKey();
        held.get().put(lockName, key);
    }

    @Override
    public void unlock(String lockName) throws Exception {
        client.getLockClient().unlock(held.get().remove(lockName)).get();
    }

    @Override
    public void close() {
        keepAlives.forEach(CloseableClient::close);
        client.close();
    }
}
