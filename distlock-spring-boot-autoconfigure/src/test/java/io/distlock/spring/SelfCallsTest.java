package io.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which calls of a bean's own @WithLock methods run without the lock (on this), read from its bytecode. */
class SelfCallsTest {
    static class Direct {
        @WithLock
        public void report() {}

        public void runAll() {
            report(); // on this: bypasses the proxy
        }
    }

    static class WithArguments {
        @WithLock(key = "#sku")
        public void buy(String sku, int quantity) {}

        public void buyTwo(String sku) {
            this.buy(sku, 2);
        }

        public void buyComputed(String sku) {
            buy(sku.trim(), Integer.parseInt("3")); // arguments computed in place: not recognised (documented)
        }
    }

    static class SelfProxy {
        SelfProxy self; // the bean itself, injected lazily: its proxy

        @WithLock
        public void report() {}

        public void runAll() {
            self.report();
        }
    }

    static class Peer {
        Peer other;

        @WithLock
        public void report() {}

        public void runBoth(Peer peer) {
            peer.report();
            other.report();
        }
    }

    static class InLambda {
        @WithLock
        public void report() {}

        public Runnable later() {
            return () -> report();
        }
    }

    static class Sub extends Direct {
        public void again() {
            report();
        }
    }

    private static List<SelfCalls.SelfCall> find(Class<?> type) {
        List<Method> annotated = Arrays.stream(type.getMethods()).filter(m -> m.isAnnotationPresent(WithLock.class)).toList();
        return SelfCalls.find(type, annotated);
    }

    @Test
    void aCallOnThisIsFoundWithItsCaller() {
        assertThat(find(Direct.class)).containsExactly(new SelfCalls.SelfCall("Direct.runAll", "Direct.report"));
        assertThat(find(WithArguments.class)).extracting(SelfCalls.SelfCall::caller).containsExactly("WithArguments.buyTwo");
    }

    @Test
    void callsThroughTheSelfProxyOrOnAnotherInstanceAreNotCallsOnThis() {
        assertThat(find(SelfProxy.class)).isEmpty();
        assertThat(find(Peer.class)).isEmpty();
    }

    @Test
    void aCallOnThisInsideALambdaOrASubclassIsFound() {
        assertThat(find(InLambda.class)).extracting(SelfCalls.SelfCall::caller).singleElement().asString().startsWith("InLambda.lambda$");
        assertThat(find(Sub.class)).extracting(SelfCalls.SelfCall::caller).containsExactlyInAnyOrder("Sub.again", "Direct.runAll");
    }
}
