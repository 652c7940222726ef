package dev.tributary.sql;

/**
 * A column of a table: physical ({@code name TYPE [NOT NULL]}), metadata ({@code name TYPE METADATA
 * [FROM 'key'] [VIRTUAL]}) or computed ({@code name AS expression}). Types are kept as Flink prints
 * them ({@link TypeText}), expressions as written with white space folded. Unused parts are null.
 */
public record Column(
    String name,
    Kind kind,
    String type,
    boolean notNull,
    String expression,
    String metadataKey,
    boolean virtual,
    String comment) {

  /** What kind of column this is. */
  public enum Kind {
    PHYSICAL,
    METADATA,
    COMPUTED
  }

  public static Column physical(String name, String type, boolean notNull, String comment) {
    return new Column(name, Kind.PHYSICAL, type, notNull, null, null, false, comment);
  }

  public static Column metadata(
      String name, String type, String key, boolean virtual, String comment) {
    return new Column(name, Kind.METADATA, type, false, null, key, virtual, comment);
  }

  public static Column computed(String name, String expression, String comment) {
    return new Column(name, Kind.COMPUTED, null, false, expression, null, false, comment);
  }
}
