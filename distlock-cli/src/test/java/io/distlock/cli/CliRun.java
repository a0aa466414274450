package io.distlock.cli;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine;

/**
 * One run of the {@code distlock} command line inside the test's JVM, as a user's shell would see it: the exit code,
 * what it printed (to {@code System.out} or picocli's writer) and its error stream.
 *
 * @param exit the exit code
 * @param out the standard output
 * @param err the error output
 */
record CliRun(int exit, String out, String err) {
    /** Runs {@code distlock args...} with empty standard input. */
    static CliRun of(String... args) {
        return withInput("", args);
    }

    /** Runs {@code distlock args...} reading {@code stdin} as its standard input. */
    static CliRun withInput(String stdin, String... args) {
        PrintStream originalOut = System.out;
        InputStream originalIn = System.in;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        StringWriter err = new StringWriter();
        try {
            PrintStream capture = new PrintStream(out, true, StandardCharsets.UTF_8);
            System.setOut(capture);
            System.setIn(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
            CommandLine commandLine = DistlockCommand.newCommandLine();
            commandLine.setOut(new PrintWriter(capture, true));
            commandLine.setErr(new PrintWriter(err, true));
            int exit = commandLine.execute(args);
            return new CliRun(exit, out.toString(StandardCharsets.UTF_8), err.toString());
        } finally {
            System.setOut(originalOut);
            System.setIn(originalIn);
        }
    }
}
