package dev.tributary.table;

/** What a write did to a table: the table afterwards (null once dropped) and a sentence. */
public record TableChange(MaterializedTable table, Outcome outcome, String message) {

  /** The kinds of outcome a write can have. */
  public enum Outcome {
    CREATED,
    UPDATED,
    UNCHANGED,
    REQUESTED,
    DROPPED,
    SKIPPED
  }
}
