package dev.tributary.sql;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.swagger.v3.oas.annotations.media.Schema;

/**
 * A column of a table: physical ({@code name TYPE [NOT NULL]}), metadata ({@code name TYPE METADATA
 * [FROM 'key'] [VIRTUAL]}) or computed ({@code name AS expression}). Types are kept as Flink prints
 * them ({@link TypeText}), expressions as written with white space folded. Unused parts are null.
 *
 * <p>In JSON the column says {@code nullable}, as the status, the plans and Flink's own schema do;
 * the code keeps {@code notNull}, the SQL it was written as. Definitions stored before the API
 * spoke {@code nullable} hold {@code notNull}, and are read either way.
 */
public record Column(
    String name,
    Kind kind,
    String type,
    @JsonProperty(access = JsonProperty.Access.WRITE_ONLY) @Schema(hidden = true) boolean notNull,
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

  /** Reads {@code nullable}, or {@code notNull} from a definition stored before it. */
  @JsonCreator
  static Column json(
      @JsonProperty("name") String name,
      @JsonProperty("kind") Kind kind,
      @JsonProperty("type") String type,
      @JsonProperty("nullable") Boolean nullable,
      @JsonProperty("notNull") Boolean notNull,
      @JsonProperty("expression") String expression,
      @JsonProperty("metadataKey") String metadataKey,
      @JsonProperty("virtual") Boolean virtual,
      @JsonProperty("comment") String comment) {
    boolean required = nullable != null ? !nullable : notNull != null && notNull;
    return new Column(
        name, kind, type, required, expression, metadataKey, Boolean.TRUE.equals(virtual), comment);
  }

  /** False for {@code NOT NULL}. */
  @JsonProperty("nullable")
  @Schema(description = "False when the column is declared NOT NULL")
  public boolean nullable() {
    return !notNull;
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
