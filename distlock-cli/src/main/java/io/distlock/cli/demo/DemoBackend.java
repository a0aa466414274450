package io.distlock.cli.demo;

/** Where the demo's distlock strategies keep their locks (option {@code --backend}); the textbook locks always use Redis. */
enum DemoBackend {
    /** The demo's Redis. */
    REDIS("redis"),
    /** An in-process ZooKeeper, or the one {@code --zookeeper} names. */
    ZOOKEEPER("zookeeper"),
    /** An etcd server the demo starts (Debian's etcd-server), or the cluster {@code --etcd} names. */
    ETCD("etcd"),
    /** A PostgreSQL server the demo starts, or the database {@code --jdbc-url} names. */
    POSTGRES("postgres"),
    /** The MySQL or MariaDB database {@code --jdbc-url} names (the CLI carries no MariaDB server: its binaries are 149 MB). */
    MYSQL("mysql"),
    /** An H2 TCP server in the demo's JVM, or the database {@code --jdbc-url} names. */
    H2("h2");

    private final String id;

    DemoBackend(String id) {
        this.id = id;
    }

    /** Returns whether the locks live in a SQL database (distlock-jdbc). */
    boolean sql() {
        return this == POSTGRES || this == MYSQL || this == H2;
    }

    /** Returns the name used on the command line. */
    String id() {
        return id;
    }
}
