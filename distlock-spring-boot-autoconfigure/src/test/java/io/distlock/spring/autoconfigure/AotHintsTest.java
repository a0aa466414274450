package io.distlock.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.spring.WithLock;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * Ahead-of-time processing of an application with the starter registers what distlock reads reflectively and as
 * resources at run time (checked with Spring's hint predicates): without these hints a native image fails at the first
 * lock (no Lua script), at the first @WithLock call (no annotation found), or reports an unknown pool.
 */
class AotHintsTest {
    /** A bean whose class locks. */
    public static class Shop {
        @WithLock(name = "stock", key = "#sku")
        public void buy(String sku) {
        }
    }

    /** A bean locking through its interface's annotation. */
    public interface Job {
        @WithLock
        void run();
    }

    public static class NightlyJob implements Job {
        @Override
        public void run() {
        }
    }

    /** A bean that does not lock. */
    public static class Catalog {
        public void list() {
        }
    }

    private static RuntimeHints processAheadOfTime() {
        GenericApplicationContext context = new GenericApplicationContext();
        context.registerBean(DistlockRuntimeHintsHolder.class);
        context.registerBean(Shop.class);
        context.registerBean(NightlyJob.class);
        context.registerBean(Catalog.class);
        DefaultGenerationContext generation = new DefaultGenerationContext(new ClassNameGenerator(ClassName.get(AotHintsTest.class)),
                new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        return generation.getRuntimeHints();
    }

    /** Carries the auto-configuration's {@code @ImportRuntimeHints} without its conditions (no LockClient needed here). */
    @org.springframework.context.annotation.ImportRuntimeHints(DistlockRuntimeHints.class)
    static class DistlockRuntimeHintsHolder {
    }

    @Test
    void theScriptsServiceFilesKeyRootAndPoolsAreRegistered() {
        RuntimeHints hints = processAheadOfTime();
        for (String script : new String[] {"acquire", "release", "renew", "force-unlock", "queue"}) {
            assertThat(RuntimeHintsPredicates.resource().forResource("io/distlock/redis/" + script + ".lua")).as(script).accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.resource().forResource("io/distlock/fencing/redis/fenced-write.lua")).accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/services/io.distlock.spi.EngineFactory")).accepts(hints);
        assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/services/io.distlock.spi.LockBackendProvider")).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(DistlockRuntimeHints.KEY_ROOT)
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of("com.zaxxer.hikari.HikariDataSource"))
                .withMemberCategory(MemberCategory.INVOKE_PUBLIC_METHODS)).as("HikariCP is on this class path").accepts(hints);
    }

    @Test
    @SuppressWarnings("deprecation") // Spring 7 deprecates the introspection categories (introspection is implied there)
    void beansWithWithLockMethodsCanBeIntrospectedAtRunTime() {
        RuntimeHints hints = processAheadOfTime();
        // Spring registers the bean classes themselves; the interface carrying the annotation only WithLockBeansAotProcessor
        assertThat(RuntimeHintsPredicates.reflection().onType(Shop.class).withMemberCategory(MemberCategory.INTROSPECT_DECLARED_METHODS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(NightlyJob.class).withMemberCategory(MemberCategory.INTROSPECT_PUBLIC_METHODS))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection().onType(Job.class).withMemberCategory(MemberCategory.INTROSPECT_DECLARED_METHODS))
                .as("the interface that carries the annotation").accepts(hints);
    }
}
