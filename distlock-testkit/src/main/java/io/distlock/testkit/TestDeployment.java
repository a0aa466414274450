package io.distlock.testkit;

import io.distlock.servers.BackendControl;

/** Where a contract test's servers are and how to fault them; the deployment extensions implement it. */
public interface TestDeployment {

    /** Returns where the servers are, in the client factory's terms (a URI or connect string). */
    String target();

    /** Returns fault injection on the servers (stop, kill, pause, restart). */
    BackendControl control();
}
