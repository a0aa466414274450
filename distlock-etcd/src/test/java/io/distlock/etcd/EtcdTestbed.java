package io.distlock.etcd;

import io.distlock.etcd.testing.EtcdClusterExtension;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What the etcd test classes share beside their servers: a raw jetcd client on them ({@link #raw()}, made when first
 * asked for, once the cluster extension has started etcd; closed after the class), and what a test opened, closed after
 * it, newest first ({@link #closeAfterTest}). Register it after the {@link EtcdClusterExtension} it is given.
 */
final class EtcdTestbed implements AfterEachCallback, AfterAllCallback {
    private final EtcdClusterExtension etcd;
    private final List<AutoCloseable> opened = new ArrayList<>(); // the test's thread only: tests of a class run one at a time
    private @Nullable RawEtcd raw;

    EtcdTestbed(EtcdClusterExtension etcd) {
        this.etcd = etcd;
    }

    /** Returns the raw client on the class's etcd. */
    RawEtcd raw() {
        RawEtcd current = raw;
        if (current == null) {
            current = new RawEtcd(etcd.target());
            raw = current;
        }
        return current;
    }

    /** Returns {@code resource}, to be closed when the test ends (after the test's own @AfterEach methods). */
    <T extends AutoCloseable> T closeAfterTest(T resource) {
        opened.add(resource);
        return resource;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        Exception failure = null;
        for (int i = opened.size() - 1; i >= 0; i--) {
            try {
                opened.get(i).close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        opened.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        RawEtcd current = raw;
        raw = null;
        if (current != null) {
            current.close();
        }
    }
}
