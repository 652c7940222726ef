package dev.tributary.local;

import dev.tributary.catalog.CatalogService;
import dev.tributary.system.TributaryProperties;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Component;

/** In local mode, registers the example catalog's source tables at start. */
@Component
@ConditionalOnProperty(name = "tributary.local.examples", havingValue = "true")
class ExampleCatalogRegistrar implements ApplicationRunner {

  private final CatalogService catalogs;
  private final TributaryProperties properties;

  ExampleCatalogRegistrar(CatalogService catalogs, TributaryProperties properties) {
    this.catalogs = catalogs;
    this.properties = properties;
  }

  @Override
  public void run(ApplicationArguments args) {
    ExampleCatalog.tables(properties.kafka().bootstrapServers())
        .forEach(
            table ->
                catalogs.registerSourceTable(
                    ExampleCatalog.CATALOG, ExampleCatalog.DATABASE, table));
  }
}
