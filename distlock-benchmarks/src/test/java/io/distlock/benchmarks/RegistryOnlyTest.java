package io.distlock.benchmarks;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/**
 * The benchmarks open distlock as users do, through the backend registry: no class here names a backend's client class
 * (the peers they are measured against are named, as are the servers the benchmark starts).
 */
class RegistryOnlyTest {

    @Test
    void distlockIsOpenedThroughTheRegistryOnly() {
        DescribedPredicate<JavaClass> backendClients = JavaClass.Predicates
                .resideInAnyPackage("io.distlock.redis..", "io.distlock.zookeeper..", "io.distlock.etcd..", "io.distlock.jdbc..")
                .and(JavaClass.Predicates.simpleNameEndingWith("LockClient"));
        noClasses().that().resideInAPackage("io.distlock.benchmarks..")
                .should().dependOnClassesThat(backendClients)
                .because("adding a backend touches that backend's module only (issue 29, item 1)")
                .check(new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS).importPackages("io.distlock.benchmarks"));
    }
}
