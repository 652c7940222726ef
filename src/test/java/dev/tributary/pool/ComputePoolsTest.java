package dev.tributary.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.TributaryProperties;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/** Pools from configuration, beside the configured cluster, with an empty store. */
class ComputePoolsTest {

  /** A store with no pool rows. */
  static final JdbcTemplate EMPTY =
      new JdbcTemplate() {
        @Override
        public <T> List<T> query(String sql, RowMapper<T> rowMapper) {
          return List.of();
        }
      };

  static ComputePools pools(Map<String, TributaryProperties.Flink.Pool> configured) {
    TributaryProperties.Flink flink =
        new TributaryProperties.Flink(
            URI.create("http://gw:8083"),
            URI.create("http://jm:8081"),
            "file:///tmp/sp",
            Duration.ofSeconds(30),
            Duration.ofMinutes(2),
            null,
            null,
            configured);
    return new ComputePools(EMPTY, null, null, new TributaryProperties(null, null, flink));
  }

  @Test
  void shouldServeConfiguredPoolsAfterTheDefaultAndRefuseToChangeThem() {
    ComputePools pools =
        pools(
            Map.of(
                "blue",
                new TributaryProperties.Flink.Pool(
                    URI.create("http://jm-blue:8081"), URI.create("http://gw-blue:8083"), 2, 8)));

    assertThat(pools.list()).extracting(ComputePools.Pool::name).containsExactly("default", "blue");
    assertThat(pools.cluster("blue"))
        .contains(
            new ComputePoolDirectory.Cluster(
                "blue",
                URI.create("http://jm-blue:8081"),
                URI.create("http://gw-blue:8083"),
                2,
                8));
    assertThat(pools.all())
        .extracting(ComputePoolDirectory.Cluster::pool)
        .containsExactly("default", "blue");
    assertThatThrownBy(
            () ->
                pools.put(
                    "blue",
                    new ComputePools.Definition(
                        URI.create("http://x:1"), URI.create("http://x:2"), null, null)))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT));
  }

  @Test
  void shouldRefuseToStartWithABadlyNamedOrAddressedPool() {
    assertThatThrownBy(
            () ->
                pools(
                    Map.of(
                        "Blue_Pool",
                        new TributaryProperties.Flink.Pool(
                            URI.create("http://jm:8081"),
                            URI.create("http://gw:8083"),
                            null,
                            null))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("tributary.flink.pools.Blue_Pool");
    assertThatThrownBy(
            () ->
                pools(
                    Map.of(
                        "blue",
                        new TributaryProperties.Flink.Pool(
                            URI.create("jm:8081"), URI.create("http://gw:8083"), null, null))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("rest-url");
  }
}
