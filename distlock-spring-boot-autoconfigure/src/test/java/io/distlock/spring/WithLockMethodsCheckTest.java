package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.distlock.redis.testing.RedisServerExtension;
import io.distlock.spring.autoconfigure.DistlockAutoConfiguration;
import io.distlock.spring.autoconfigure.WithLockAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * A {@code @WithLock} method that a proxy can never advise (it would run unlocked), or whose key or durations cannot
 * work, stops the startup naming the method; before, the first ran unlocked without a word and the others failed at
 * their first call.
 */
class WithLockMethodsCheckTest {
    @RegisterExtension
    static final RedisServerExtension redis = new RedisServerExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class, WithLockAutoConfiguration.class))
            .withPropertyValues("distlock.target=" + redis.server().uri());

    /** A final method: a class-based proxy cannot override it. */
    static class FinalJob {
        @WithLock
        public final void run() {}
    }

    /** A private method: no proxy calls it. */
    static class PrivateJob {
        @WithLock
        private void run() {}

        public void start() {
            run();
        }
    }

    /** A static method. */
    static class StaticJob {
        @WithLock
        public static void run() {}
    }

    /** A key that is not SpEL. */
    static class UnparsableKey {
        @WithLock(key = "#p0 +")
        public void run(String sku) {}
    }

    /** A wait that is not a duration. */
    static class UnreadableWait {
        @WithLock(waitTime = "soon")
        public void run() {}
    }

    /** Everything right. */
    static class GoodJob {
        @WithLock(key = "#p0", waitTime = "1s", minHold = "0s")
        public void run(String sku) {}
    }

    private String startupFailure(Class<?> bean) {
        String[] failure = new String[1];
        runner.withBean(bean).run(context -> {
            assertThat(context).hasFailed();
            StringBuilder all = new StringBuilder();
            for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
                all.append(t.getMessage()).append('\n');
            }
            failure[0] = all.toString();
        });
        return failure[0];
    }

    @Test
    void aFinalMethodFailsTheStartupInsteadOfRunningUnlocked() {
        assertThat(startupFailure(FinalJob.class)).contains("@WithLock on FinalJob.run() is never applied: the method is final");
    }

    @Test
    void aPrivateOrStaticMethodFailsTheStartupInsteadOfRunningUnlocked() {
        assertThat(startupFailure(PrivateJob.class)).contains("@WithLock on PrivateJob.run() is never applied: the method is private");
        assertThat(startupFailure(StaticJob.class)).contains("@WithLock on StaticJob.run() is never applied: the method is static");
    }

    @Test
    void aKeyThatIsNotSpelOrAWaitThatIsNotADurationFailsTheStartupNamingTheMethod() {
        assertThat(startupFailure(UnparsableKey.class)).contains("is not valid SpEL").contains("UnparsableKey.run").contains("#p0 +");
        assertThat(startupFailure(UnreadableWait.class)).contains("UnreadableWait.run").contains("soon");
    }

    @Test
    void aBeanWhoseMethodsCanAllBeAdvisedStartsAndLocks() {
        runner.withBean(GoodJob.class).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(GoodJob.class).run("sku-1");
        });
    }

    /** A job that calls its own locked method on this. */
    static class SelfCallingJob {
        @WithLock
        public void report() {}

        public void runAll() {
            report();
        }
    }

    @Test
    void aCallOnThisOfALockedMethodIsWarnedOfAtStartup() {
        try (StandardErrorCopy output = new StandardErrorCopy()) {
            runner.withBean(SelfCallingJob.class).run(context -> assertThat(context).hasNotFailed());
            assertThat(output.text()).contains("@WithLock on SelfCallingJob.report() is bypassed where SelfCallingJob.runAll() calls it on this");
        }
        try (StandardErrorCopy output = new StandardErrorCopy()) {
            runner.withBean(GoodJob.class).run(context -> assertThat(context).hasNotFailed());
            assertThat(output.text()).doesNotContain("is bypassed");
        }
    }
}
