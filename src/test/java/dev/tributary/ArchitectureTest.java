package dev.tributary;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The layering of STYLE.md: the domain and the statement language never reach an adapter. */
class ArchitectureTest {

  static final JavaClasses MAIN =
      new ClassFileImporter()
          .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
          .importPackages("dev.tributary");

  @Test
  void shouldKeepReconcilerAndStatementLanguageFreeOfAdapters() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "dev.tributary.reconcile..", "dev.tributary.sql..", "dev.tributary.table..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tributary.adapter..")
        .allowEmptyShould(true)
        .check(MAIN);
  }

  @Test
  void shouldKeepPackagesFreeOfCycles() {
    // Every package is a slice: table.web may use plan, and plan table, but never both ways.
    slices().matching("dev.tributary.(**)").should().beFreeOfCycles().check(MAIN);
  }

  @Test
  void shouldKeepTheReconcilerInternalToItself() {
    // The API, the statements and the planners reach the world through port/ and the status
    // through table/; the loop, its passes and its store are used by nothing but themselves.
    noClasses()
        .that()
        .resideOutsideOfPackage("dev.tributary.reconcile..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("dev.tributary.reconcile..")
        .check(MAIN);
  }

  @Test
  void shouldKeepTheStatementLanguageFreeOfTheServiceAroundIt() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.sql..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..",
            "jakarta..",
            "dev.tributary.adapter..",
            "dev.tributary.system.web..",
            "dev.tributary.table..",
            "dev.tributary.reconcile..",
            "dev.tributary.plan..",
            "dev.tributary.statement..")
        .check(MAIN);
  }

  @Test
  void shouldKeepPortsFreeOfFrameworks() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.port..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.springframework..",
            "jakarta.persistence..",
            "tools.jackson..",
            "org.apache.kafka..")
        .check(MAIN);
  }

  @Test
  void shouldKeepAdaptersIndependentOfEachOther() {
    for (String adapter : new String[] {"kafka", "schemaregistry", "flink"}) {
      noClasses()
          .that()
          .resideInAPackage("dev.tributary.adapter." + adapter + "..")
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(otherAdapters(adapter))
          .check(MAIN);
    }
  }

  @Test
  void shouldKeepTheStatementLanguageFreeOfSpringAndIo() {
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.sql..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.springframework..", "java.io..", "java.nio..", "java.net..")
        .allowEmptyShould(true)
        .check(MAIN);
  }

  @Test
  void shouldKeepTheCommandLineAClientOfTheApiOnly() {
    // It starts no service and is packed alone (target/tributary-cli.jar, src/assembly/cli.xml):
    // the JDK's HTTP client, picocli and Jackson, nothing of Spring or of the service.
    classes()
        .that()
        .resideInAPackage("dev.tributary.cli..")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("java..", "picocli..", "tools.jackson..", "dev.tributary.cli..", "")
        .check(MAIN);
  }

  @Test
  void shouldKeepTheFlinkFormatApartFromTheService() {
    // It runs on the Flink cluster, packaged alone: Flink and the JDK only, in both directions.
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.flinkformat..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "dev.tributary.adapter..",
            "dev.tributary.catalog..",
            "dev.tributary.plan..",
            "dev.tributary.reconcile..",
            "dev.tributary.sql..",
            "dev.tributary.statement..",
            "dev.tributary.system..",
            "dev.tributary.table..",
            "org.springframework..",
            "tools.jackson..")
        .check(MAIN);
    // Flink's classes are used in three places only: the statement language uses Flink's SQL
    // parser, the registry schemas Flink's type system and Avro converter, and validation Flink's
    // planner in this process (PlannerFlinkSql).
    noClasses()
        .that()
        .resideOutsideOfPackages("dev.tributary.flinkformat..", "dev.tributary.sql..")
        .and()
        .haveNameNotMatching("dev\\.tributary\\.plan\\.SchemaDocuments(\\$.*)?")
        .and()
        .haveNameNotMatching("dev\\.tributary\\.adapter\\.flink\\.PlannerFlinkSql(\\$.*)?")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("org.apache.flink..", "dev.tributary.flinkformat..")
        .check(MAIN);
    classes()
        .that()
        .haveNameMatching("dev\\.tributary\\.plan\\.SchemaDocuments(\\$.*)?")
        .should()
        .onlyDependOnClassesThat()
        .resideInAnyPackage("org.apache.flink.table.types..", "dev.tributary..", "java..")
        .check(MAIN);
    noClasses()
        .that()
        .resideInAPackage("dev.tributary.sql..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "org.apache.flink.table..", "org.apache.flink.api..", "dev.tributary.flinkformat..")
        .check(MAIN);
  }

  private static String[] otherAdapters(String adapter) {
    return Stream.of("kafka", "schemaregistry", "flink")
        .filter(a -> !a.equals(adapter))
        .map(a -> "dev.tributary.adapter." + a + "..")
        .toArray(String[]::new);
  }
}
