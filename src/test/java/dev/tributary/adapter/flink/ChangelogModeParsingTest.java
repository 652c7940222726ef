package dev.tributary.adapter.flink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.port.FlinkSql.RowKind;
import org.junit.jupiter.api.Test;

class ChangelogModeParsingTest {

  @Test
  void shouldReadTheRootNodeOfTheOptimizedPlan() {
    String explain =
        """
        == Abstract Syntax Tree ==
        LogicalAggregate(group=[{0}], orders=[COUNT()])
        +- LogicalProject(customer_id=[$1])

        == Optimized Physical Plan ==
        GroupAggregate(groupBy=[customer_id], select=[customer_id, COUNT(*) AS orders], changelogMode=[I,UB,UA])
        +- Exchange(distribution=[hash[customer_id]], changelogMode=[I])
           +- TableSourceScan(table=[[examples, marketplace, orders]], changelogMode=[I])

        == Optimized Execution Plan ==
        GroupAggregate(groupBy=[customer_id])
        """;

    assertThat(QueryProbes.parseChangelogMode(explain).kinds())
        .containsExactlyInAnyOrder(RowKind.INSERT, RowKind.UPDATE_BEFORE, RowKind.UPDATE_AFTER);
  }

  @Test
  void shouldRecognizeAnInsertOnlyQuery() {
    String explain =
        """
        == Optimized Physical Plan ==
        Calc(select=[order_id, price], where=[>(price, 50.0)], changelogMode=[I])
        +- TableSourceScan(table=[[examples, marketplace, orders]], changelogMode=[I])
        """;

    assertThat(QueryProbes.parseChangelogMode(explain).insertOnly()).isTrue();
  }
}
