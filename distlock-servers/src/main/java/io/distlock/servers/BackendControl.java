package io.distlock.servers;

/** Fault injection on a backend server the test started: stop, kill, pause, restart. */
public interface BackendControl {

    /** Stops the server gracefully and waits until it is gone. */
    void stop();

    /** Kills the server with SIGKILL and waits until it is gone. */
    void kill();

    /** Starts the server again on the same address, with no data (as after a restart without persistence). */
    void start();

    /** Stops and starts the server on the same address; data is lost. */
    default void restart() {
        stop();
        start();
    }

    /** Freezes the server (SIGSTOP): connections stay open but nothing is answered. */
    void pause();

    /** Thaws a paused server (SIGCONT). */
    void resume();

    /**
     * Returns a control that applies each action to every part in turn (a cluster, RedLock's nodes),
     * and runs {@code afterStart} once all parts are started again (e.g. to wait until a cluster is healthy).
     */
    static BackendControl allOf(java.util.List<? extends BackendControl> parts, Runnable afterStart) {
        return new BackendControl() {
            @Override
            public void stop() {
                parts.forEach(BackendControl::stop);
            }

            @Override
            public void kill() {
                parts.forEach(BackendControl::kill);
            }

            @Override
            public void start() {
                parts.forEach(BackendControl::start);
                afterStart.run();
            }

            @Override
            public void pause() {
                parts.forEach(BackendControl::pause);
            }

            @Override
            public void resume() {
                parts.forEach(BackendControl::resume);
            }
        };
    }
}
