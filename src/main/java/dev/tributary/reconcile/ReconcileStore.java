package dev.tributary.reconcile;

import dev.tributary.table.Phase;
import dev.tributary.table.TableStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The reconciler's side of the store: claiming due rows with a lease (so replicas never work on the
 * same row), reading a table as a pass sees it, writing observed state and events, and the final
 * removal of a dropped table. The API never writes what is written here.
 */
public interface ReconcileStore {

  /**
   * Claims up to {@code limit} due, unleased rows for {@code owner}, each with a fresh token;
   * remote calls come after.
   */
  List<Claim> claim(String owner, int limit, Duration lease);

  /**
   * A claimed row: its id, the token that fences every write of the pass, its attempt count (for
   * backoff; -1 when the store did not say) and when its row was last written (null: unknown), by
   * the store's clock.
   */
  record Claim(UUID id, UUID token, int attempt, Instant written) {
    public Claim(UUID id, UUID token) {
      this(id, token, -1, null);
    }
  }

  /**
   * Thrown by a fenced write whose claim is no longer held: the pass must end, changing nothing.
   */
  class ClaimLostException extends RuntimeException {
    public ClaimLostException(UUID id) {
      super("The claim of table " + id + " is no longer held; another replica owns it");
    }

    /** For a pass that has no claim to lose (a sweep's look; see {@link ReconcilePass}). */
    protected ClaimLostException(String message) {
      super(message);
    }
  }

  /**
   * Extends the lease of a claim that is still held and says so; false when it was lost. Called
   * before every side effect, so a pass that lost its row never acts on it.
   */
  boolean confirm(UUID id, UUID token, Duration lease);

  /** Extends the leases of the claims still held (a heartbeat while passes run). */
  void extend(List<Claim> claims, Duration lease);

  /**
   * Gives the row back and says when to look again; a spec change made during the pass (a newer
   * generation than the pass saw) makes it due at once.
   */
  void release(UUID id, UUID token, long seenGeneration, Duration after, int attempt);

  /**
   * A {@link #release} to be done. A {@code settled} row (the pass found nothing to do and the
   * table at rest) is not due again by time: {@link #SETTLED} is its next attempt, and the sweep
   * looks at it instead (see {@link ReconcileWorker#sweep}).
   */
  record Release(
      UUID id, UUID token, long seenGeneration, Duration after, int attempt, boolean settled) {
    public Release(UUID id, UUID token, long seenGeneration, Duration after, int attempt) {
      this(id, token, seenGeneration, after, attempt, false);
    }
  }

  /**
   * The next attempt of a settled row: never by time. Anything that makes a row due (a spec change,
   * a job that changed state, a refresh firing, the sweep) sets it to now.
   */
  Instant SETTLED = Instant.parse("9999-12-31T00:00:00Z");

  /**
   * Takes this round of the sweep for {@code owner}: true for one replica per {@code interval} (one
   * row of the store is written per round, none per table).
   */
  default boolean beginSweep(String owner, Duration interval) {
    return true;
  }

  /**
   * The settled rows no replica holds, each with a stamp that changes whenever the row is written
   * (what tells the sweep that a snapshot it keeps is stale).
   */
  default Map<UUID, Long> settled() {
    return Map.of();
  }

  /** A settled row's new status, as of the stamp its look saw. */
  record SettledStatus(UUID id, long stamp, TableStatus status) {}

  /**
   * Writes the statuses of settled rows that moved, in one round trip: each only if its row is
   * still settled, unleased and unwritten since its stamp (else a claimed pass decides). Returns
   * the new stamp of each row written.
   */
  default Map<UUID, Long> writeSettled(List<SettledStatus> statuses) {
    return Map.of();
  }

  /** Many releases at once (one round trip where the store can). */
  default void releaseAll(List<Release> releases) {
    for (Release r : releases) {
      release(r.id(), r.token(), r.seenGeneration(), r.after(), r.attempt());
    }
  }

  /**
   * Gives back every row {@code owner} still holds, due now, so that another replica takes them at
   * once rather than when their leases run out; a pass of that owner still running can no longer
   * write (its token is gone). What a replica does as it shuts down. Returns how many it held.
   */
  int abandon(String owner);

  Optional<TableSnapshot> load(UUID id);

  /** Many rows at once (one round trip where the store can); rows gone are absent. */
  default Map<UUID, TableSnapshot> loadAll(Collection<UUID> ids) {
    Map<UUID, TableSnapshot> found = new HashMap<>();
    for (UUID id : ids) {
      load(id).ifPresent(s -> found.put(id, s));
    }
    return found;
  }

  /** The store's clock now: what {@link Claim#written()} is compared against. */
  default Instant now() {
    return Instant.now();
  }

  /**
   * The topics of the rows due now, for one describe of them all before their passes; a hint only
   * (a row may be claimed by another replica, or become due later).
   */
  default List<String> dueTopics() {
    return List.of();
  }

  /** Current attempt count of a row (for backoff). */
  int attempt(UUID id);

  /**
   * Writes observed state under the claim {@code token} (null: unfenced, for tools and tests);
   * throws {@link ClaimLostException} when the claim is no longer held.
   */
  void saveStatus(UUID id, UUID token, Phase phase, long observedGeneration, TableStatus status);

  void event(UUID id, String type, String reason, String message);

  /**
   * A refresh attempt of table {@code id} ended after {@code took}: {@code succeeded}, {@code
   * retried} or {@code failed}. Only measured; the refresh ledger holds the record.
   */
  default void refreshEnded(UUID id, String outcome, Duration took) {}

  /**
   * Runs {@code work}'s writes to the store as one: all of them or none, and seen by readers only
   * together (a refresh recorded SUCCEEDED with its event and the table's status).
   */
  default <T> T atomically(Supplier<T> work) {
    return work.get();
  }

  /**
   * Makes these tables due now (their jobs changed state, a refresh fired), ahead of every row that
   * is due already: what changed in the world is looked at before a backlog. Unknown ids are
   * ignored.
   */
  void markDue(Collection<UUID> ids);

  /**
   * An evolution did not come up: version {@code failed} is marked with the cause and version
   * {@code to}'s definition becomes current again, as a new version.
   */
  void rollBack(UUID id, UUID token, long failed, long to, String cause);

  /**
   * Deletes events older than {@code maxAge}, and beyond the newest {@code keepPerTable} of each
   * table; returns how many went.
   */
  int pruneEvents(Duration maxAge, int keepPerTable);

  /** A flow of a pipeline table, as the table's pass aggregates it. */
  record FlowState(
      UUID id, String name, Phase phase, TableStatus status, boolean deletionRequested) {}

  /** The flows of pipeline table {@code table}, by name. */
  List<FlowState> flows(UUID table);

  /** The end of a DROP: the definition goes; versions and events stay as history. */
  void delete(UUID id, UUID token);
}
