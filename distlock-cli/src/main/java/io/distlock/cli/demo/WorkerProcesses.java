package io.distlock.cli.demo;

import io.distlock.servers.ChildJvm;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;

/** Starts the worker JVMs of one race, releases them together, and collects their reports. */
final class WorkerProcesses implements AutoCloseable {
    private final List<ChildJvm> workers = new ArrayList<>();
    private final List<String> results = new CopyOnWriteArrayList<>();
    private final List<String> output = new CopyOnWriteArrayList<>();

    /** Starts {@code count} workers with the shared arguments, and each with its own ({@code ownArgs} of its index). */
    WorkerProcesses(int count, List<String> workerArgs, IntFunction<List<String>> ownArgs) {
        try {
            for (int i = 0; i < count; i++) {
                workers.add(ChildJvm.of(DemoWorker.class).name("demo-worker-" + i).jvmFlags(ChildJvm.QUICK_START_FLAGS)
                        .jvmFlags("-Xmx256m").args("--index", Integer.toString(i)).args(workerArgs).args(ownArgs.apply(i))
                        .onLine(this::collect).start());
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private void collect(String line) {
        if (line.startsWith("RESULT ")) {
            results.add(line.substring(7));
        } else {
            output.add(line);
        }
    }

    /** Waits until every worker is connected and ready. */
    void awaitReady(Duration timeout) throws InterruptedException {
        try {
            ChildJvm.awaitAllReady(workers, timeout);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("workers did not start within " + timeout.toSeconds() + " s; their output:\n"
                    + String.join("\n", output), e);
        }
    }

    /** Starts all workers at once. */
    void go() {
        workers.forEach(ChildJvm::go);
    }

    boolean allDone() {
        return workers.stream().noneMatch(ChildJvm::isAlive);
    }

    /** Returns the RESULT lines reported so far. */
    List<String> results() {
        return results;
    }

    /** Returns everything else the workers printed (errors, stack traces). */
    List<String> output() {
        return output;
    }

    @Override
    public void close() {
        ChildJvm.closeAll(workers); // workers exit when their stdin closes
    }
}
