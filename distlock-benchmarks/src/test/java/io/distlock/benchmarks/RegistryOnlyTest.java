package io.distlock.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks open distlock as users do, through the backend registry, and start their servers through the
 * {@code -testing} modules' providers: no class here names a backend's client class or server launcher (the peers they
 * are measured against are named: they are what is measured).
 */
class RegistryOnlyTest {
    private static final com.tngtech.archunit.core.domain.JavaClasses BENCHMARKS = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.distlock.benchmarks");

    @Test
    void distlockIsOpenedThroughTheRegistryOnly() {
        DescribedPredicate<JavaClass> backendClients = JavaClass.Predicates
                .resideInAnyPackage("io.distlock.redis..", "io.distlock.zookeeper..", "io.distlock.etcd..", "io.distlock.jdbc..")
                .and(JavaClass.Predicates.simpleNameEndingWith("LockClient"));
        noClasses().that().resideInAPackage("io.distlock.benchmarks..")
                .should().dependOnClassesThat(backendClients)
                .because("adding a backend touches that backend's module only (issue 29, item 1)")
                .check(BENCHMARKS);
    }

    @Test
    void serversAreStartedThroughTheProvidersOfTheTestingModules() {
        noClasses().that().resideInAPackage("io.distlock.benchmarks..")
                .should().dependOnClassesThat().resideInAnyPackage("io.distlock.redis.testing..", "io.distlock.zookeeper.testing..",
                        "io.distlock.etcd.testing..", "io.distlock.jdbc.testing..")
                .because("a new backend's servers reach the benchmarks through its DeploymentProvider (issue 29, item 1)")
                .check(BENCHMARKS);
    }
}
