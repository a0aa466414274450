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

    /** Child: prints the number of lines it is told, one of them {@code BAD}, then exits. */
    public static final class Flood {
        public static void main(String[] args) throws Exception {
            ParentJvm.readyThenAwaitGo();
            int lines = Integer.parseInt(args[0]);
            for (int i = 0; i < lines; i++) {
                System.out.println(i == lines / 2 ? "BAD" : "line " + i);
            }
            System.out.flush();
        }
    }

    /**
     * Child: numbers 200,000 lines, recording after each the number of the last line it wrote in the file {@code args[0]},
     * then waits to be killed.
     */
    public static final class Counter {
        public static void main(String[] args) throws Exception {
            ParentJvm.readyThenAwaitGo();
            try (java.io.RandomAccessFile written = new java.io.RandomAccessFile(args[0], "rw")) {
                for (long i = 0; i < 200_000; i++) {
                    System.out.println("line " + i + " and some padding, as long as an event line of the checker");
                    System.out.flush();
                    written.seek(0);
                    written.writeLong(i);
                }
                Thread.sleep(TimeUnit.MINUTES.toMillis(5));
            }
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

    @Test
    void afterTheOutputEndsTheListenerHasSeenEveryLineAndALineItFailedOnIsKeptNotTheRestLost() throws Exception {
        java.util.List<String> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        int lines = 20_000; // far more than a pipe holds: the child blocks until the reader catches up
        try (ChildJvm child = ChildJvm.of(Flood.class).args(Integer.toString(lines)).onLine(line -> {
            if (line.equals("BAD")) {
                throw new IllegalArgumentException("cannot parse");
            }
            seen.add(line);
        }).start()) {
            child.awaitReady(Duration.ofSeconds(60));
            child.go();
            assertThat(child.awaitOutputEnd(Duration.ofSeconds(60))).as("output ended").isTrue();
            assertThat(seen).hasSize(lines - 1).startsWith("line 0").endsWith("line " + (lines - 1));
            assertThat(child.output()).singleElement().asString().contains("cannot parse").endsWith("BAD");
        }
    }

    @Test
    void aKilledChildsLinesAreAllReadEvenWhenTheReaderWasBehind(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        // the JDK's process reaper drains and closes a dead child's pipe, and a reader that was behind got "Stream
        // closed" and lost up to 64 KiB (the checker lost the last seconds of killed workers' events that way)
        java.nio.file.Path written = dir.resolve("written");
        java.util.List<Long> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        java.util.concurrent.atomic.AtomicBoolean slow = new java.util.concurrent.atomic.AtomicBoolean();
        try (ChildJvm child = ChildJvm.of(Counter.class).jvmFlags(ChildJvm.QUICK_START_FLAGS).args(written.toString()).onLine(line -> {
            seen.add(Long.parseLong(line.split(" ")[1]));
            if (slow.get()) {
                try {
                    Thread.sleep(1); // a reader that falls behind
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }).start()) {
            child.awaitReady(Duration.ofSeconds(60));
            child.go();
            Await.until(Duration.ofSeconds(30), "lines arrive", () -> seen.size() > 1000);
            slow.set(true);
            Await.untilAnswered(Duration.ofSeconds(30), "the reader fell behind", () -> lastWritten(written) > seen.size() + 500);
            child.kill();
            slow.set(false);
            assertThat(child.awaitOutputEnd(Duration.ofSeconds(60))).as("output ended").isTrue();
            long last = lastWritten(written);
            assertThat(seen).as("every line up to the last one the child recorded writing, in order").hasSizeGreaterThan((int) last);
            for (int i = 0; i <= last; i++) {
                assertThat(seen.get(i)).isEqualTo((long) i);
            }
        }
    }

    private static long lastWritten(java.nio.file.Path file) throws java.io.IOException {
        if (!java.nio.file.Files.exists(file) || java.nio.file.Files.size(file) < Long.BYTES) {
            return -1;
        }
        try (java.io.DataInputStream in = new java.io.DataInputStream(java.nio.file.Files.newInputStream(file))) {
            return in.readLong();
        }
    }
}
