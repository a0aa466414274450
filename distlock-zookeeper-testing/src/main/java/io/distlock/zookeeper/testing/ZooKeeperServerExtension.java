package io.distlock.zookeeper.testing;

import io.distlock.servers.BackendControl;
import io.distlock.servers.TcpProxy;
import io.distlock.testkit.DeploymentExtension;
import io.distlock.zookeeper.testing.ZooKeeperServer;
import org.jspecify.annotations.Nullable;

/**
 * One in-process {@link ZooKeeperServer} for a test class; the target is its connect string.
 * {@link #behindProxy()} puts a {@link TcpProxy} between the clients and the server, so that pausing
 * the deployment freezes the server as the clients see it (an in-process server cannot be SIGSTOPped).
 */
public final class ZooKeeperServerExtension extends DeploymentExtension<ZooKeeperServer> {
    private final boolean proxied;
    private @Nullable TcpProxy proxy;

    /** A server the clients reach directly; it cannot be paused. */
    public ZooKeeperServerExtension() {
        this(false);
    }

    private ZooKeeperServerExtension(boolean proxied) {
        this.proxied = proxied;
    }

    /** A server the clients reach through a proxy: pause and resume freeze and thaw that proxy. */
    public static ZooKeeperServerExtension behindProxy() {
        return new ZooKeeperServerExtension(true);
    }

    @Override
    protected ZooKeeperServer launch() {
        ZooKeeperServer server = ZooKeeperServer.launch();
        if (proxied) {
            proxy = TcpProxy.to(server.port());
        }
        return server;
    }

    @Override
    protected void shutDown(ZooKeeperServer running) {
        if (proxy != null) {
            proxy.close();
            proxy = null;
        }
        running.close();
    }

    /** Returns the running server. */
    public ZooKeeperServer server() {
        return servers();
    }

    /** Returns the connect string of the server itself, bypassing the proxy (for raw-state checks). */
    public String directTarget() {
        return server().connectString();
    }

    @Override
    public String target() {
        TcpProxy link = proxy;
        return link != null ? "127.0.0.1:" + link.port() : server().connectString();
    }

    @Override
    public BackendControl control() {
        ZooKeeperServer server = server();
        TcpProxy link = proxy;
        if (link == null) {
            return server;
        }
        return new BackendControl() {
            @Override
            public void stop() {
                server.stop();
            }

            @Override
            public void kill() {
                server.kill();
            }

            @Override
            public void start() {
                server.start();
            }

            @Override
            public void restart() {
                server.restart();
            }

            @Override
            public void pause() {
                link.freeze();
            }

            @Override
            public void resume() {
                link.thaw();
            }
        };
    }
}
