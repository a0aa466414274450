package io.distlock.spring;

import io.distlock.Lease;
import io.distlock.fencing.FencingContext;
import org.springframework.util.ClassUtils;

/**
 * Makes a {@code @WithLock} method's fencing token the current token of distlock-fencing's guards, when that module is
 * on the class path; nothing otherwise. Its classes are touched only after the presence check, so this class loads
 * without them.
 */
final class FencingTokenScope {
    private static final boolean FENCING_PRESENT = ClassUtils.isPresent("io.distlock.fencing.FencingContext", FencingTokenScope.class.getClassLoader());
    private static final LockContext.Scope NONE = () -> {};

    private FencingTokenScope() {}

    static LockContext.Scope enter(Lease lease) {
        return FENCING_PRESENT ? Present.enter(lease) : NONE;
    }

    /** Loaded only when distlock-fencing is present. */
    private static final class Present {
        static LockContext.Scope enter(Lease lease) {
            FencingContext.Scope scope = FencingContext.enter(lease.fencingToken());
            return scope::close;
        }
    }
}
