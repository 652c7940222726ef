package dev.tributary.reconcile;

import dev.tributary.port.FlinkJobs.JobSummary;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One JobManager overview, indexed by the table each job belongs to and by job id. Our jobs carry
 * their table's id in their names ({@code tributary-<id>-<fingerprint>} for a table's or flow's
 * job, {@code tributary-refresh-<id>-...} for a FULL refresh), so a pass is handed its own jobs in
 * O(1); scanning the whole overview in every pass was quadratic in the number of tables.
 */
final class JobIndex {

  private static final Pattern OURS =
      Pattern.compile(
          "tributary-(?:refresh-)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-.*");

  private final List<JobSummary> all;
  private final Map<UUID, List<JobSummary>> byTable = new HashMap<>();
  private final Map<String, Integer> position = new HashMap<>();

  JobIndex(List<JobSummary> overview) {
    this.all = overview;
    for (int i = 0; i < overview.size(); i++) {
      JobSummary job = overview.get(i);
      position.put(job.id(), i);
      Matcher m = OURS.matcher(job.name());
      if (m.matches()) {
        byTable.computeIfAbsent(UUID.fromString(m.group(1)), k -> new ArrayList<>()).add(job);
      }
    }
  }

  /** Every job of the overview. */
  List<JobSummary> all() {
    return all;
  }

  /**
   * The jobs a pass over {@code table} can act on, in overview order: those named for it, and the
   * job its status records (whatever its name).
   */
  List<JobSummary> of(TableSnapshot table) {
    List<JobSummary> jobs = byTable.getOrDefault(table.id(), List.of());
    String recorded = table.status() == null ? null : table.status().jobId();
    Integer at = recorded == null ? null : position.get(recorded);
    if (at == null || jobs.stream().anyMatch(j -> j.id().equals(recorded))) {
      return jobs;
    }
    List<JobSummary> with = new ArrayList<>(jobs);
    with.add(all.get(at));
    with.sort(Comparator.comparingInt(j -> position.get(j.id())));
    return with;
  }
}
