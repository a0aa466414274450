package io.distlock.cli.demo;

/** Where the demo's distlock strategies keep their locks (option {@code --backend}); the textbook locks always use Redis. */
enum DemoBackend {
    /** The demo's Redis. */
    REDIS("redis"),
    /** An in-process ZooKeeper, or the one {@code --zookeeper} names. */
    ZOOKEEPER("zookeeper");

    private final String id;

    DemoBackend(String id) {
        this.id = id;
    }

    /** Returns the name used on the command line. */
    String id() {
        return id;
    }
}
