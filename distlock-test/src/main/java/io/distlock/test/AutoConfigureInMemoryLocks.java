package io.distlock.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

/**
 * On a Spring Boot test ({@code @SpringBootTest} or a slice): the application's {@code LockClient} is a client of an
 * {@link InMemoryLockServer} bean instead of the configured backend, so {@code @WithLock}, {@code LockTemplate} and the
 * application's own locking run without a server. Inject the {@link InMemoryLockServer} to simulate a lost lease or
 * a clock jump, or to make a second client (another instance of the application).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration
public @interface AutoConfigureInMemoryLocks {
}
