package io.distlock.spring;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Keeps a copy of what is written to {@code System.err} until closed, where slf4j-simple (the tests' logger) writes as
 * it finds {@code System.err} at each call. Boot's OutputCaptureExtension would do, but Boot 4's needs JUnit 6.
 */
final class StandardErrorCopy implements AutoCloseable {
    private final PrintStream original = System.err;
    private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

    StandardErrorCopy() {
        System.setErr(new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                original.write(b);
                synchronized (copy) {
                    copy.write(b);
                }
            }

            @Override
            public void write(byte[] bytes, int off, int len) {
                original.write(bytes, off, len);
                synchronized (copy) {
                    copy.write(bytes, off, len);
                }
            }
        }, true));
    }

    /** Returns what was written since this copy began. */
    String text() {
        synchronized (copy) {
            return copy.toString(StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() {
        System.setErr(original);
    }
}
