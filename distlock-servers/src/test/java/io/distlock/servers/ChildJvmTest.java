package io.distlock.servers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Child JVMs: the READY/GO handshake, output lines, and no child outliving its parent's interest. */
class ChildJvmTest {

    /** Child: ready, then echoes the GO words, then waits to be released. */
    public static final class Echo {
        public static void main(String[] args) throws Exception {
            Optional<String> words = ParentJvm.readyThenAwaitGo();
            if (words.isEmpty()) {
                return;
            }
            System.out.println("GOT " + words.get() + " " + String.join(" ", args));
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(5)); // ends when the parent closes stdin
        }
    }

    /** Child: fails before it is ready. */
    public static final class Broken {
        public static void main(String[] args) {
            System.out.println("cannot connect to anything");
            System.exit(7);
        }
    }

    @Test
    void aChildIsReleasedByGoWithWordsAndExitsWhenItsStdinCloses() throws Exception {
        ChildJvm child = ChildJvm.of(Echo.class).jvmFlags(ChildJvm.QUICK_START_FLAGS).args("a1", "a2").start();
        try {
            child.awaitReady(Duration.ofSeconds(60));
            child.go("w1 w2");
            assertThat(child.awaitLine(line -> line.startsWith("GOT"), Duration.ofSeconds(30))).isEqualTo("GOT w1 w2 a1 a2");
        } finally {
            child.close(); // closes its stdin
        }
        assertThat(child.isAlive()).isFalse();
        assertThat(child.exitValue()).as("halted by the stdin guard, not killed").isEqualTo(ParentJvm.EXIT_CODE_PARENT_GONE);
    }

    @Test
    void aChildThatDiesBeforeItIsReadyIsReportedWithItsOutput() {
        try (ChildJvm child = ChildJvm.of(Broken.class).start()) {
            assertThatThrownBy(() -> child.awaitReady(Duration.ofSeconds(60))).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("exited with 7").hasMessageContaining("cannot connect to anything");
        }
    }

    @Test
    void aKilledChildIsGoneAndALineListenerSeesEveryLineButReady() throws Exception {
        java.util.List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (ChildJvm child = ChildJvm.of(Echo.class).onLine(seen::add).start()) {
            child.awaitReady(Duration.ofSeconds(60));
            child.go();
            Await.until(Duration.ofSeconds(30), "the child echoed", () -> seen.stream().anyMatch(line -> line.startsWith("GOT")));
            assertThat(child.output()).as("lines went to the listener").isEmpty();
            child.kill();
            assertThat(child.isAlive()).isFalse();
        }
        assertThat(seen).doesNotContain(ChildJvm.READY);
    }
}
