/**
 * distlock core: the public lock API ({@code io.distlock}) and the backend SPI ({@code io.distlock.spi}).
 * The engine in {@code io.distlock.internal} is deliberately not exported.
 */
module io.distlock {
    requires org.slf4j;
    requires static org.jspecify;

    exports io.distlock;
    exports io.distlock.spi;

    uses io.distlock.spi.LockBackendProvider;
    uses io.distlock.spi.EngineFactory;

    provides io.distlock.spi.EngineFactory with io.distlock.internal.DefaultEngineFactory;
}
