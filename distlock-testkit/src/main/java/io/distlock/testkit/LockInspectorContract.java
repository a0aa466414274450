package io.distlock.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.distlock.DistributedReadWriteLock;
import io.distlock.Lease;
import io.distlock.LockClient;
import io.distlock.LockInspector;
import io.distlock.LockInspector.Holder;
import io.distlock.LockKind;
import io.distlock.LockInspector.LockState;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * What an operator's inspector shows of the locks on a backend: every kind, holders with their fencing
 * tokens, waiters, names matched by a pattern. The inspector is the client's own ({@link LockClient#inspector()}).
 */
public abstract class LockInspectorContract extends ContractSupport {

    /** Runs where the backend's clients have an inspector. */
    @Override
    protected boolean runsOn(BackendHooks hooks) {
        return hooks.hasInspector();
    }


    /** Returns the inspector of {@code client}'s backend; the client must have one. */
    protected static LockInspector inspector(LockClient client) {
        return client.inspector().orElseThrow(() -> new AssertionError(client + " has no inspector"));
    }

    @Test
    void everyKindIsListedWithItsHoldersTokensAndWaiters() throws Exception {
        String base = uniqueName();
        LockClient client = newClient();
        Lease plain = client.getLock(base + ":plain").acquire(SOON);
        Lease fair = client.getFairLock(base + ":fair").acquire(SOON);
        Future<Optional<Lease>> fairWaiter = queuedWaiter(newClient().getFairLock(base + ":fair"), SOON);
        DistributedReadWriteLock readWrite = client.getReadWriteLock(base + ":rw");
        Lease reader1 = readWrite.readLock().acquire(SOON);
        Lease reader2 = newClient().getReadWriteLock(base + ":rw").readLock().acquire(SOON);
        Lease permit = client.getSemaphore(base + ":sem", 3).acquire(SOON);

        List<LockState> all = inspector(newClient()).list(base + ":*");
        assertThat(all).extracting(LockState::name).containsExactly(base + ":fair", base + ":plain", base + ":rw", base + ":sem");

        LockState plainState = state(all, base + ":plain", LockKind.LOCK);
        assertThat(plainState.holders()).extracting(Holder::token).containsExactly(plain.fencingToken());
        assertThat(plainState.holders().get(0).ownerId()).isNotBlank();
        LockState fairState = state(all, base + ":fair", LockKind.FAIR_LOCK);
        assertThat(fairState.holders()).extracting(Holder::token).containsExactly(fair.fencingToken());
        assertThat(fairState.waiters()).isEqualTo(1);
        LockState rwState = state(all, base + ":rw", LockKind.READ_WRITE_LOCK);
        assertThat(rwState.holders()).extracting(Holder::token).containsExactlyInAnyOrder(reader1.fencingToken(), reader2.fencingToken());
        assertThat(rwState.holders()).extracting(Holder::role).containsOnly("read");
        LockState semState = state(all, base + ":sem", LockKind.SEMAPHORE);
        assertThat(semState.permits()).isEqualTo(3);
        assertThat(semState.holders()).extracting(Holder::token).containsExactly(permit.fencingToken());
        assertThat(semState.waiters()).isZero();

        assertThat(inspector(newClient()).show(base + ":fair")).extracting(LockState::kind).containsExactly(LockKind.FAIR_LOCK);
        assertThat(inspector(newClient()).list(base + ":?lain")).extracting(LockState::name).containsExactly(base + ":plain");
        assertThat(inspector(newClient()).list(uniqueName() + "*")).isEmpty();
        fair.close();
        fairWaiter.get().ifPresent(Lease::close);
        List.of(plain, reader1, reader2, permit).forEach(Lease::close);
    }

    @Test
    void aReleasedLockShowsNoHolder() throws Exception {
        String name = uniqueName();
        Lease lease = newClient().getLock(name).acquire(SOON);
        assertThat(inspector(newClient()).show(name)).singleElement().satisfies(state -> assertThat(state.holders()).hasSize(1));
        lease.close();
        assertThat(inspector(newClient()).show(name)).allSatisfy(state -> assertThat(state.holders()).isEmpty());
    }

    @Test
    void aWriterIsShownAsTheWriter() throws Exception {
        String name = uniqueName();
        Lease writer = newClient().getReadWriteLock(name).writeLock().acquire(SOON);
        LockState state = state(inspector(newClient()).show(name), name, LockKind.READ_WRITE_LOCK);
        assertThat(state.holders()).singleElement().satisfies(holder -> {
            assertThat(holder.role()).isEqualTo("write");
            assertThat(holder.token()).isEqualTo(writer.fencingToken());
        });
        writer.close();
    }

    @Test
    void namesWithPatternCharactersAreShownLiterally() throws Exception {
        String name = uniqueName() + "*?{}";
        Lease lease = newClient().getLock(name).acquire(SOON);
        newClient().getLock(name.replace("*?", "xx")).acquire(SOON);
        assertThat(inspector(newClient()).show(name)).extracting(LockState::name).containsExactly(name);
        assertThatThrownBy(() -> inspector(newClient()).list(null)).isInstanceOf(IllegalArgumentException.class);
        lease.close();
    }

    private static LockState state(List<LockState> states, String name, LockKind kind) {
        return states.stream().filter(s -> s.name().equals(name) && s.kind() == kind).findFirst()
                .orElseThrow(() -> new AssertionError("no " + kind + " '" + name + "' in " + states));
    }
}
