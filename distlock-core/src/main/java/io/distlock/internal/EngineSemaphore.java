package io.distlock.internal;

import io.distlock.DistributedSemaphore;
import io.distlock.Lease;
import io.distlock.LockAcquireTimeoutException;
import io.distlock.LockOptions;
import io.distlock.spi.SemaphoreStorage;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The {@link DistributedSemaphore} of every backend with {@link SemaphoreStorage}: each permit is an
 * acquisition of its own in a shared {@link LockSpace} (one per number of permits, pinned while an acquire
 * runs), detached from the acquiring thread, so that any thread may close it and one thread may hold several.
 */
final class EngineSemaphore implements DistributedSemaphore {
    private static final long FOREVER = LockAcquirer.FOREVER;

    private final EngineContext engine;
    private final KindSpaces spaces;
    private final SemaphoreStorage storage;
    private final String name;
    private final int permits;
    private final LockOptions options;

    EngineSemaphore(EngineContext engine, KindSpaces spaces, SemaphoreStorage storage, String name, int permits, LockOptions options) {
        this.engine = engine;
        this.spaces = spaces;
        this.storage = storage;
        this.name = name;
        this.permits = permits;
        this.options = options;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int permits() {
        return permits;
    }

    @Override
    public LockOptions options() {
        return options;
    }

    @Override
    public int availablePermits() {
        engine.checkOpen();
        return engine.calls().awaitUninterruptibly(storage.availablePermits(name, permits), "availablePermits", name);
    }

    @Override
    public Lease acquire() throws InterruptedException {
        Acquisition held = Objects.requireNonNull(hold(FOREVER), "a wait without a deadline ends with a hold");
        return LeaseHandle.owning(held.slot.space, held);
    }

    @Override
    public Lease acquire(Duration waitTime) throws InterruptedException {
        return tryAcquire(waitTime).orElseThrow(() -> new LockAcquireTimeoutException(name, waitTime));
    }

    @Override
    public Optional<Lease> tryAcquire(Duration waitTime) throws InterruptedException {
        Acquisition held = hold(EngineLock.checkWait(waitTime));
        return held == null ? Optional.empty() : Optional.of(LeaseHandle.owning(held.slot.space, held));
    }

    private @Nullable Acquisition hold(long waitNanos) throws InterruptedException {
        engine.checkOpen();
        LockSpace space = spaces.pinSemaphoreSpace(storage, permits);
        try {
            LockSlot slot = space.slots.enter(name);
            try {
                Acquisition acquired = space.acquirer.acquire(slot, options, waitNanos);
                if (acquired != null) {
                    acquired.detach();
                }
                return acquired;
            } finally {
                slot.leave();
            }
        } finally {
            spaces.unpin(space);
        }
    }

    @Override
    public String toString() {
        return "DistributedSemaphore[" + name + ", " + permits + " permits, " + options + "]";
    }
}
