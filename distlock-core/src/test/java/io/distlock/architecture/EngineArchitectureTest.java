package io.distlock.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import com.tngtech.archunit.library.dependencies.SlicesRuleDefinition;
import io.distlock.internal.DefaultEngineFactory;
import org.junit.jupiter.api.Test;

/**
 * The shape of distlock-core that docs/architecture.md ("The engine is a tree") describes, checked on the compiled
 * classes: the API and the SPI do not depend on the engine, the engine's types are package-private, and no engine class
 * reaches back into the client that built it.
 */
class EngineArchitectureTest {

    private static final JavaClasses CORE = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.distlock");

    @Test
    void theApiAndTheSpiDoNotDependOnTheEngine() {
        noClasses().that().resideInAnyPackage("io.distlock", "io.distlock.spi")
                .should().dependOnClassesThat().resideInAPackage("io.distlock.internal")
                .because("backends and users see the API and the SPI only; the engine is found through EngineFactory")
                .check(CORE);
    }

    @Test
    void theEngineHasOnePublicClassTheFactoryThatServiceLoaderBuilds() {
        classes().that().resideInAPackage("io.distlock.internal").and().areTopLevelClasses()
                .and().areNotAssignableTo(DefaultEngineFactory.class)
                .should().notBePublic()
                .because("the engine is not API: only the factory that ServiceLoader instantiates is public (a member of an interface "
                        + "is public by the language, and reachable only as far as its interface is)")
                .check(CORE);
    }

    @Test
    void noEngineClassReachesBackIntoTheClient() {
        noClasses().that().resideInAPackage("io.distlock.internal")
                .and().doNotHaveSimpleName("EngineLockClient").and().doNotHaveSimpleName("DefaultEngineFactory")
                .should().dependOnClassesThat().haveSimpleName("EngineLockClient")
                .because("the client hands an EngineContext down; nothing below it calls back up (no service locator)")
                .check(CORE);
    }

    /**
     * The engine's classes form no cycle, except inside the groups docs/architecture.md names: the acquisition core (a
     * space's slots and their holds know each other: a slot counts its holders, a hold reports its end to its slot and
     * space, the granters fire the waiting slot's signal, a lease handed on locally is parked in its slot), an acquisition and the listeners' events about it, and the
     * two sides of a read-write lock and the lock they belong to.
     */
    @Test
    void theEngineClassesFormNoCyclesBeyondTheNamedOnes() {
        String[] acquisitionCore = {"LockSpace", "LockSlots", "LockSlot", "Acquisition", "LeaseHandle", "ReleaseSignal", "LockAcquirer",
                "PollingGranter", "QueueGranter", "DowngradeGranter", "Granter", "CohortHandoff"};
        String[] acquisitionEvents = {"Acquisition", "LockEvents"};
        String[] readWriteSides = {"EngineLock", "EngineReadWriteLock"};
        SlicesRuleDefinition.slices().assignedFrom(new TopLevelEngineClasses())
                .should().beFreeOfCycles()
                .ignoreDependency(JavaClassNamed.in(acquisitionCore), JavaClassNamed.in(acquisitionCore))
                .ignoreDependency(JavaClassNamed.in(acquisitionEvents), JavaClassNamed.in(acquisitionEvents))
                .ignoreDependency(JavaClassNamed.in(readWriteSides), JavaClassNamed.in(readWriteSides))
                .check(CORE);
    }

    /** Each top-level class of the engine is a slice of its own (nested classes belong to theirs). */
    private static final class TopLevelEngineClasses implements SliceAssignment {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass javaClass) {
            if (!javaClass.getPackageName().equals("io.distlock.internal")) {
                return SliceIdentifier.ignore();
            }
            String name = javaClass.getName().substring("io.distlock.internal.".length());
            int nested = name.indexOf('$');
            return SliceIdentifier.of(nested < 0 ? name : name.substring(0, nested));
        }

        @Override
        public String getDescription() {
            return "top-level classes of io.distlock.internal";
        }
    }

    /** Matches the engine classes (and their nested classes) with these simple names. */
    private static final class JavaClassNamed extends com.tngtech.archunit.base.DescribedPredicate<JavaClass> {
        private final java.util.Set<String> names;

        private JavaClassNamed(java.util.Set<String> names) {
            super("one of " + names);
            this.names = names;
        }

        static JavaClassNamed in(String... names) {
            return new JavaClassNamed(java.util.Set.of(names));
        }

        @Override
        public boolean test(JavaClass javaClass) {
            String name = javaClass.getName();
            if (!name.startsWith("io.distlock.internal.")) {
                return false;
            }
            String simple = name.substring("io.distlock.internal.".length());
            int nested = simple.indexOf('$');
            return names.contains(nested < 0 ? simple : simple.substring(0, nested));
        }
    }
}
