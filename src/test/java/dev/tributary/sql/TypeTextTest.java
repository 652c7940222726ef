package dev.tributary.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TypeTextTest {

  @Test
  void shouldPrintTypesAsFlinkDoes() {
    assertThat(TypeText.canonical("decimal( 10,2 )")).isEqualTo("DECIMAL(10, 2)");
    assertThat(TypeText.canonical("timestamp(3)  with local time zone"))
        .isEqualTo("TIMESTAMP(3) WITH LOCAL TIME ZONE");
    assertThat(TypeText.canonical("map< string ,array<int> >"))
        .isEqualTo("MAP<STRING, ARRAY<INT>>");
    assertThat(TypeText.canonical("varchar(20)")).isEqualTo("VARCHAR(20)");
    assertThat(TypeText.canonical("INTEGER")).isEqualTo("INTEGER");
  }

  @Test
  void shouldKeepRowFieldNamesQuotedNamesAndCommentsAsWritten() {
    assertThat(TypeText.canonical("row<id int, streetName string 'where', `Zip` int>"))
        .isEqualTo("ROW<id INT, streetName STRING 'where', `Zip` INT>");
    assertThat(TypeText.canonical("ROW(lat double, Lon double)"))
        .isEqualTo("ROW(lat DOUBLE, Lon DOUBLE)");
    assertThat(TypeText.canonical("array<row<name string>>")).isEqualTo("ARRAY<ROW<name STRING>>");
  }

  @Test
  void shouldShowCanonicalTypesInShowCreate() {
    Statement.CreateMaterializedTable create =
        ParserTest.create(
            "CREATE MATERIALIZED TABLE t (id int not null, price decimal( 10,2 ), PRIMARY KEY"
                + " (id) NOT ENFORCED) AS SELECT id, price FROM s");
    String printed = Printer.print(create);
    assertThat(printed).contains("`id` INT NOT NULL").contains("DECIMAL(10, 2)");
  }
}
