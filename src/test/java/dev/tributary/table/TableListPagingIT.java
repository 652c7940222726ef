package dev.tributary.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.sql.ObjectName;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * The list of a database's materialized tables read a page at a time from the store (keyset by
 * name), not all of them sorted in memory for every page. Same properties as StoreIT: one cached
 * context.
 */
@TributaryIT
@TestPropertySource(
    properties = {
      "tributary.reconciler.enabled=false",
      "tributary.kafka.topic-name-template={catalog}.{table}"
    })
class TableListPagingIT {

  @LocalServerPort int port;
  @Autowired MaterializedTableService tables;
  @Autowired JdbcTemplate jdbc;

  @Test
  void shouldPageTablesByNameWithoutRepeatsOrGapsWhileTablesComeAndGo() throws Exception {
    String catalog = "paging_" + UUID.randomUUID().toString().substring(0, 8);
    StoredTables.create(tables, catalog, 12); // t0 .. t11
    Api api = new Api(port);
    String list = "/v1/catalogs/" + catalog + "/databases/db/materialized-tables?limit=5";

    Api.Answer first = api.get(list);
    assertThat(first.status()).isEqualTo(200);
    assertThat(names(first)).containsExactly("t0", "t1", "t10", "t11", "t2");
    // Between pages: a table before the cursor goes, one after it comes.
    jdbc.update(
        "DELETE FROM materialized_table WHERE name = 't1' AND database_id = (SELECT d.id FROM"
            + " catalog_database d JOIN catalog c ON c.id = d.catalog_id WHERE c.name = ?)",
        catalog);
    StoredTables.createOne(tables, catalog, 99);

    List<String> rest = new ArrayList<>();
    String token = first.body().path("nextPageToken").asString();
    int pages = 1;
    while (token != null) {
      Api.Answer page = api.get(list + "&pageToken=" + token);
      assertThat(page.status()).isEqualTo(200);
      rest.addAll(names(page));
      token = page.body().path("nextPageToken").asString(null);
      pages++;
    }
    assertThat(rest).containsExactly("t3", "t4", "t5", "t6", "t7", "t8", "t9", "t99");
    assertThat(pages).isEqualTo(3);

    // The phase filter is part of the list: a token of the unfiltered list is refused.
    assertThat(
            names(
                api.get(
                    "/v1/catalogs/"
                        + catalog
                        + "/databases/db/materialized-tables?phase=PENDING&limit=2")))
        .containsExactly("t0", "t10");
    assertThat(
            api.get(
                    "/v1/catalogs/"
                        + catalog
                        + "/databases/db/materialized-tables?phase=RUNNING&pageToken="
                        + first.body().path("nextPageToken").asString())
                .status())
        .isEqualTo(400);
    assertThat(
            names(
                api.get(
                    "/v1/catalogs/" + catalog + "/databases/db/materialized-tables?phase=RUNNING")))
        .isEmpty();
    assertThat(tables.get(new ObjectName(catalog, "db", "t99")).getName()).isEqualTo("t99");
  }

  private static List<String> names(Api.Answer answer) {
    List<String> names = new ArrayList<>();
    answer.body().path("items").forEach(t -> names.add(t.path("metadata").path("name").asString()));
    return names;
  }
}
