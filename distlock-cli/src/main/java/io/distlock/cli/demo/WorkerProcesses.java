package io.distlock.cli.demo;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Starts the worker JVMs of one race, releases them together, and collects their reports. */
final class WorkerProcesses implements AutoCloseable {
    private final List<Process> processes = new ArrayList<>();
    private final List<String> results = new CopyOnWriteArrayList<>();
    private final List<String> output = new CopyOnWriteArrayList<>();
    private final CountDownLatch ready;

    WorkerProcesses(int workers, List<String> workerArgs) throws IOException {
        this.ready = new CountDownLatch(workers);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int i = 0; i < workers; i++) {
            List<String> command = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-Xshare:auto", "-Xmx256m", "-cp", System.getProperty("java.class.path"), DemoWorker.class.getName(),
                    "--index", Integer.toString(i)));
            command.addAll(workerArgs);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            processes.add(process);
            Thread reader = new Thread(() -> collect(process), "demo-worker-output-" + i);
            reader.setDaemon(true);
            reader.start();
        }
    }

    private void collect(Process process) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.equals("READY")) {
                    ready.countDown();
                } else if (line.startsWith("RESULT ")) {
                    results.add(line.substring(7));
                } else {
                    output.add(line);
                }
            }
        } catch (IOException ignored) {
            // the process ended
        }
    }

    /** Waits until every worker is connected and ready. */
    void awaitReady(long timeoutSeconds) throws InterruptedException {
        if (!ready.await(timeoutSeconds, TimeUnit.SECONDS)) {
            throw new IllegalStateException("workers did not start within " + timeoutSeconds + " s; their output:\n" + String.join("\n", output));
        }
    }

    /** Starts all workers at once. */
    void go() throws IOException {
        for (Process process : processes) {
            OutputStream in = process.getOutputStream();
            in.write("GO\n".getBytes(StandardCharsets.US_ASCII));
            in.flush();
        }
    }

    boolean allDone() {
        return processes.stream().noneMatch(Process::isAlive);
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
        for (Process process : processes) {
            try {
                process.getOutputStream().close(); // workers exit when their stdin closes
            } catch (IOException ignored) {
                // already gone
            }
            process.destroyForcibly();
        }
    }
}
