package io.distlock.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module floors of docs/architecture.md, checked on the compiled classes of every shipped module (this module's
 * class path has them all): a backend module, and its {@code -testing} module of servers, does not depend on another
 * backend, and no backend on the tools above it (its {@code -testing} module builds on the neutral servers and testkit).
 */
class ModuleArchitectureTest {

    private static final List<String> BACKENDS = List.of("io.distlock.redis", "io.distlock.zookeeper", "io.distlock.etcd", "io.distlock.jdbc");

    private static final JavaClasses SHIPPED = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.distlock");

    @Test
    void backendModulesAreFreeOfEachOther() {
        for (String backend : BACKENDS) {
            String[] others = BACKENDS.stream().filter(other -> !other.equals(backend)).map(other -> other + "..").toArray(String[]::new);
            noClasses().that().resideInAPackage(backend + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(others)
                    .because("adding or changing a backend touches that backend's module only")
                    .check(SHIPPED);
        }
    }

    @Test
    void backendsAndTheCoreDependOnNothingAboveThem() {
        String[] tools = {"io.distlock.cli..", "io.distlock.checker..", "io.distlock.servers..", "io.distlock.testkit..", "io.distlock.spring..",
                "io.distlock.benchmarks.."};
        noClasses().that().resideInAnyPackage(BACKENDS.stream().map(backend -> backend + "..").toArray(String[]::new))
                .and().resideOutsideOfPackages(BACKENDS.stream().map(backend -> backend + ".testing..").toArray(String[]::new))
                .should().dependOnClassesThat().resideInAnyPackage(tools)
                .because("the library users ship does not pull in the command line, the checker or the test servers")
                .check(SHIPPED);
        noClasses().that().resideInAnyPackage("io.distlock", "io.distlock.spi", "io.distlock.internal")
                .should().dependOnClassesThat().resideInAnyPackage(tools)
                .because("the library users ship does not pull in the command line, the checker or the test servers")
                .check(SHIPPED);
    }

    @Test
    void theNeutralTestToolsKnowNoBackend() {
        noClasses().that().resideInAnyPackage("io.distlock.servers..", "io.distlock.testkit..")
                .should().dependOnClassesThat().resideInAnyPackage(BACKENDS.stream().map(backend -> backend + "..").toArray(String[]::new))
                .because("a backend's servers and test wiring live in its own -testing module (issue 29, item 2)")
                .check(SHIPPED);
    }

    @Test
    void theCommandLineOpensBackendsThroughTheRegistryOnly() {
        DescribedPredicate<JavaClass> backendClients = JavaClass.Predicates
                .resideInAnyPackage(BACKENDS.stream().map(backend -> backend + "..").toArray(String[]::new))
                .and(JavaClass.Predicates.simpleNameEndingWith("LockClient"));
        noClasses().that().resideInAnyPackage("io.distlock.cli..", "io.distlock.checker..")
                .should().dependOnClassesThat(backendClients)
                .because("the demo, the bench, the checker and 'locks' open --backend and --target through LockClients (issue 29, item 1)")
                .check(SHIPPED);
    }

    @Test
    void theDemoAndTheBenchStartTheirServersThroughTheProviders() {
        noClasses().that().resideInAnyPackage("io.distlock.cli.demo..", "io.distlock.cli.bench..", "io.distlock.cli.options..")
                .should().dependOnClassesThat().resideInAnyPackage(BACKENDS.stream().map(backend -> backend + ".testing..").toArray(String[]::new))
                .because("the demo's store and the bench's default server come from Deployments.server(id) (issue 29, item 1)")
                .check(SHIPPED);
    }
}
