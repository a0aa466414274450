package io.distlock.micrometer;

import io.distlock.Lease;
import io.distlock.LeaseLostException;
import io.distlock.LockListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Micrometer meters for one distlock client, as a {@link LockListener}:
 *
 * <ul>
 *   <li>{@code distlock.held}: a long-task timer, one task per held lock (active tasks, how long held);
 *   <li>{@code distlock.lease.renewals}: a counter, tag {@code outcome} = {@code success} or {@code failure};
 *   <li>{@code distlock.lease.lost}: a counter, tag {@code reason} = a {@link LeaseLostException.Reason}.
 * </ul>
 *
 * Every meter carries {@code distlock.backend} and {@code distlock.name}. The name tag is the part of the
 * lock name before its first {@code ':'} ({@code stock} for {@code stock:sku-42}, which is how
 * {@code @WithLock} names locks), so a key per order or customer does not become a tag value per order;
 * pass another function to {@link #of(MeterRegistry, String, Function)} to choose differently.
 *
 * <pre>{@code
 * RedisLockClient locks = RedisLockClient.builder().uri(uri).listener(DistlockMetrics.of(registry, "redis")).build();
 * }</pre>
 */
public final class DistlockMetrics implements LockListener {
    /** The default name tag: the lock name up to its first ':'. */
    public static final Function<String, String> NAME_BEFORE_FIRST_COLON = name -> {
        int colon = name.indexOf(':');
        return colon < 0 ? name : name.substring(0, colon);
    };

    private final MeterRegistry registry;
    private final String backend;
    private final Function<String, String> nameTag;
    private final Map<Lease, LongTaskTimer.Sample> held = new ConcurrentHashMap<>();

    private DistlockMetrics(MeterRegistry registry, String backend, Function<String, String> nameTag) {
        this.registry = registry;
        this.backend = backend;
        this.nameTag = nameTag;
    }

    /** Meters in {@code registry}, tagged {@code distlock.backend=backend} and the name before the first ':'. */
    public static DistlockMetrics of(MeterRegistry registry, String backend) {
        return of(registry, backend, NAME_BEFORE_FIRST_COLON);
    }

    /** Meters in {@code registry}, tagged {@code distlock.backend=backend} and {@code distlock.name=nameTag(lock name)}. */
    public static DistlockMetrics of(MeterRegistry registry, String backend, Function<String, String> nameTag) {
        if (registry == null || backend == null || backend.isBlank() || nameTag == null) {
            throw new IllegalArgumentException("registry, backend and nameTag must be given");
        }
        return new DistlockMetrics(registry, backend, nameTag);
    }

    @Override
    public void acquired(Lease lease) {
        held.put(lease, LongTaskTimer.builder("distlock.held").description("Locks held by this client, and for how long")
                .tags(tags(lease)).register(registry).start());
    }

    @Override
    public void renewed(Lease lease) {
        renewals(lease, "success").increment();
    }

    @Override
    public void renewalFailed(Lease lease, Throwable error) {
        renewals(lease, "failure").increment();
    }

    @Override
    public void lost(Lease lease, LeaseLostException loss) {
        Counter.builder("distlock.lease.lost").description("Leases lost while held, by reason")
                .tags(tags(lease).and("reason", loss.reason().name())).register(registry).increment();
    }

    @Override
    public void ended(Lease lease) {
        LongTaskTimer.Sample sample = held.remove(lease);
        if (sample != null) {
            sample.stop();
        }
    }

    private Counter renewals(Lease lease, String outcome) {
        return Counter.builder("distlock.lease.renewals").description("Lease renewals, by outcome")
                .tags(tags(lease).and("outcome", outcome)).register(registry);
    }

    private Tags tags(Lease lease) {
        return Tags.of("distlock.backend", backend, "distlock.name", nameTag.apply(lease.lockName()));
    }

    @Override
    public String toString() {
        return "DistlockMetrics[" + backend + ", " + held.size() + " held]";
    }
}
