package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.tributary.system.ErrorCode;
import org.junit.jupiter.api.Test;

/** Bad statements are refused with a code, a message, the position and a caret snippet. */
class ParserErrorTest {

  static SqlException error(String sql) {
    SqlException e = catchThrowableOfType(SqlException.class, () -> Parser.parseScript(sql));
    assertThat(e).as("expected an error for: " + sql).isNotNull();
    return e;
  }

  @Test
  void shouldPointAtTheUnexpectedToken() {
    SqlException e =
        error("CREATE MATERIALIZED TABLE t\n  FRESHNES = INTERVAL '1' MINUTE\nAS SELECT 1");

    assertThat(e.code()).isEqualTo(ErrorCode.SQL_SYNTAX_ERROR);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(3);
    assertThat(e.getMessage()).startsWith("Expected '(', COMMENT").endsWith("but found 'FRESHNES'");
    assertThat(e.snippet()).isEqualTo("  FRESHNES = INTERVAL '1' MINUTE\n  ^");
  }

  @Test
  void shouldNameTheStatementOfAScript() {
    SqlException e = error("SHOW MATERIALIZED TABLES;\nDROP MATERIALIZED TABLE;");

    assertThat(e.statementIndex()).isEqualTo(1);
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.column()).isEqualTo(24);
    assertThat(e.getMessage()).isEqualTo("Expected table name but found ';'");
  }

  @Test
  void shouldRefuseUnterminatedStringsIdentifiersCommentsAndParentheses() {
    assertThat(error("CREATE MATERIALIZED TABLE t COMMENT 'oops AS SELECT 1").getMessage())
        .startsWith("Unterminated string");
    assertThat(error("DESCRIBE `t").getMessage()).startsWith("Unterminated identifier");
    assertThat(error("SHOW TABLES /* never closed").getMessage())
        .startsWith("Unterminated comment");
    SqlException paren = error("CREATE MATERIALIZED TABLE t AS SELECT (1 FROM x");
    assertThat(paren.getMessage())
        .isEqualTo("Unbalanced ( in the query after AS: it is never closed");
    assertThat(paren.column()).isEqualTo(39);
  }

  @Test
  void shouldRefuseAnEmptyQueryAndAnEmptyScript() {
    assertThat(error("CREATE MATERIALIZED TABLE t AS ;").getMessage())
        .isEqualTo("Expected query after AS but found ';'");
    assertThat(error("  -- nothing\n ; ;").getMessage()).isEqualTo("No statement given");
  }

  @Test
  void shouldSuggestTheNearestOptionForAMisspeltKey() {
    SqlException e = error("ALTER MATERIALIZED TABLE t SET ('kafka.retention-time' = '30 d')");

    assertThat(e.code()).isEqualTo(ErrorCode.UNKNOWN_OPTION);
    assertThat(e.getMessage())
        .isEqualTo("Unknown option 'kafka.retention-time'; did you mean 'kafka.retention.time'?");
    assertThat(e.column()).isEqualTo(33);
    assertThat(e.expected()).isEqualTo("kafka.retention.time");
  }

  @Test
  void shouldCheckTheShapeOfOptionValues() {
    assertThat(
            error(
                    "CREATE MATERIALIZED TABLE t WITH ('kafka.retention.time' = '30 parsecs') AS SELECT 1")
                .getMessage())
        .isEqualTo(
            "Invalid value '30 parsecs' for option 'kafka.retention.time': expected a duration such as '30 d' or '12 h', or '-1' for no limit");
    SqlException policy =
        error(
            "CREATE MATERIALIZED TABLE t WITH ('kafka.cleanup-policy' = 'sometimes') AS SELECT 1");
    assertThat(policy.code()).isEqualTo(ErrorCode.INVALID_OPTION_VALUE);
    assertThat(policy.getMessage()).endsWith("expected one of compact, delete, delete-compact");
  }

  @Test
  void shouldRefuseInvalidDefinitions() {
    assertThat(error("CREATE MATERIALIZED TABLE t (a INT, a STRING) AS SELECT 1").getMessage())
        .isEqualTo("Column 'a' is defined twice");
    assertThat(
            error("CREATE MATERIALIZED TABLE t (a INT, PRIMARY KEY (b) NOT ENFORCED) AS SELECT 1")
                .getMessage())
        .isEqualTo("The primary key names column 'b', which the table does not have");
    assertThat(
            error("CREATE MATERIALIZED TABLE t DISTRIBUTED INTO 0 BUCKETS AS SELECT 1")
                .getMessage())
        .isEqualTo("The bucket count must be between 1 and 100000, was 0");
    assertThat(
            error("CREATE MATERIALIZED TABLE t START_MODE = FROM_TIMESTAMP AS SELECT 1")
                .getMessage())
        .isEqualTo(
            "FROM_TIMESTAMP needs a timestamp: START_MODE = FROM_TIMESTAMP('2026-01-01 00:00:00')");
    assertThat(error("CREATE MATERIALIZED TABLE `orders/v2` AS SELECT 1").getMessage())
        .startsWith("Table name 'orders/v2' cannot name its Kafka topic");
    assertThat(
            error("CREATE MATERIALIZED TABLE t COMMENT 'a' COMMENT 'b' AS SELECT 1").getMessage())
        .isEqualTo("COMMENT is given twice");
    assertThat(
            error("CREATE TABLE t PARTITIONED BY (a) CLUSTER BY (b) FLOW INSERT BY NAME SELECT 1")
                .getMessage())
        .isEqualTo("PARTITIONED BY and CLUSTER BY cannot be combined");
    assertThat(error("CREATE MATERIALIZED TABLE t (a, b INT) AS SELECT 1 AS a, 2 AS b"))
        .hasMessageStartingWith("Either every physical column has a type or none does");
    assertThat(error("SHOW TABLES;".repeat(Parser.MAX_STATEMENTS + 1)))
        .hasMessageStartingWith("A script has at most 500 statements");
    assertThat(error("ALTER MATERIALIZED TABLE t RESET ()").getMessage())
        .startsWith("RESET needs at least one option key");
    assertThat(error("CREATE MATERIALIZED TABLE t FRESHNESS = INTERVAL '1' MONTH AS SELECT 1"))
        .hasMessageStartingWith("An interval here is measured in SECOND, MINUTE, HOUR or DAY");
  }

  @Test
  void shouldRefuseExpectationsThatAreNotRowLevel() {
    assertThat(
            error(
                    "CREATE TABLE t (CONSTRAINT c EXPECT (count(*) > 0)) FLOW INSERT BY NAME SELECT 1")
                .getMessage())
        .isEqualTo(
            "Expectation 'c' must not use the function COUNT, which is not evaluated row by row");
    assertThat(
            error(
                    "CREATE TABLE t (CONSTRAINT c EXPECT (id IN (SELECT id FROM x))) FLOW INSERT BY NAME SELECT 1")
                .getMessage())
        .isEqualTo("Expectation 'c' must not use a subquery");
    assertThat(
            error(
                    "CREATE TABLE t (CONSTRAINT c EXPECT (rank() OVER (ORDER BY x) = 1)) FLOW INSERT BY NAME SELECT 1")
                .getMessage())
        .contains("RANK");
  }

  @Test
  void shouldRefuseQueriesItCannotAnswer() {
    SqlException e =
        error(
            "SELECT table_name FROM information_schema.materialized_tables WHERE a = 'x' OR b = 'y'");

    assertThat(e.code()).isEqualTo(ErrorCode.UNSUPPORTED_STATEMENT);
    assertThat(e.getMessage())
        .startsWith("Only simple queries are answered here")
        .endsWith("but found 'OR'");
  }

  @Test
  void shouldRefuseATooLargeScript() {
    SqlException e = error("SHOW TABLES;".repeat(Parser.MAX_SCRIPT_LENGTH / 10));

    assertThat(e.code()).isEqualTo(ErrorCode.STATEMENT_TOO_LARGE);
  }
}
