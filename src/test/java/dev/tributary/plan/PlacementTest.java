package dev.tributary.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tributary.port.ComputePoolDirectory;
import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkJobs.JobState;
import dev.tributary.port.FlinkJobs.JobSummary;
import dev.tributary.sql.MaterializedTableDefinition;
import dev.tributary.sql.ObjectName;
import dev.tributary.sql.Parser;
import dev.tributary.sql.Statement;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.ReadOnce;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The room a pool has for one more job, against fakes of the JobManager and the directory. */
class PlacementTest {

  static final ObjectName TABLE = ObjectName.of("c.d.t");

  /** A directory of default (no limit) and blue (maxSlots as given). */
  static ComputePoolDirectory directory(Integer blueMaxSlots) {
    ComputePoolDirectory.Cluster def =
        new ComputePoolDirectory.Cluster(
            "default", URI.create("http://a:8081"), URI.create("http://a:8083"), null, null);
    ComputePoolDirectory.Cluster blue =
        new ComputePoolDirectory.Cluster(
            "blue", URI.create("http://b:8081"), URI.create("http://b:8083"), 2, blueMaxSlots);
    return new ComputePoolDirectory() {
      @Override
      public Optional<Cluster> cluster(String pool) {
        return all().stream().filter(c -> c.pool().equals(pool)).findFirst();
      }

      @Override
      public List<Cluster> all() {
        return List.of(def, blue);
      }
    };
  }

  /** {@link #directory} with no budget, blue being drained into default. */
  static ComputePoolDirectory blueDrainingIntoDefault() {
    ComputePoolDirectory pools = directory(null);
    return new ComputePoolDirectory() {
      @Override
      public Optional<Cluster> cluster(String pool) {
        return pools.cluster(pool);
      }

      @Override
      public List<Cluster> all() {
        return pools.all();
      }

      @Override
      public Optional<String> drainingTo(String pool) {
        return pool.equals("blue") ? Optional.of("default") : Optional.empty();
      }
    };
  }

  /** A JobManager with these slots and these jobs, whatever the pool. */
  static FlinkJobs jobs(FlinkJobs.Slots slots, List<JobSummary> overview) {
    return (FlinkJobs)
        Proxy.newProxyInstance(
            FlinkJobs.class.getClassLoader(),
            new Class<?>[] {FlinkJobs.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "slots" -> slots;
                  case "overview" -> overview;
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  static JobSummary job(String name, JobState state) {
    return new JobSummary(name.hashCode() + "", name, state, Instant.EPOCH);
  }

  @Test
  void shouldAskTheJobManagerOncePerScriptForAPoolsRoom() {
    List<String> calls = new ArrayList<>();
    FlinkJobs counted = jobs(new FlinkJobs.Slots(32, 20, 2), List.of());
    FlinkJobs jobs =
        (FlinkJobs)
            Proxy.newProxyInstance(
                FlinkJobs.class.getClassLoader(),
                new Class<?>[] {FlinkJobs.class},
                (proxy, method, args) -> {
                  calls.add(method.getName() + " " + args[0]);
                  return method.invoke(counted, args);
                });
    Placement placement = new Placement(directory(6), jobs);

    ReadOnce.within( // one script's questions
        () -> {
          placement.requireRoom(TABLE, "blue");
          placement.requireRoom(ObjectName.of("c.d.u"), "blue");
          placement.requireRoom(TABLE, "default");
          return null;
        });
    assertThat(calls).containsExactly("slots blue", "overview blue", "slots default");

    calls.clear();
    placement.requireRoom(TABLE, "blue"); // outside a script (the reconciler): asked each time
    placement.requireRoom(TABLE, "blue");
    assertThat(calls).hasSize(4);
  }

  @Test
  void shouldCountOnlyLiveJobsOfOursAgainstMaxSlots() {
    List<JobSummary> overview =
        List.of(
            job("tributary-1-a", JobState.RUNNING),
            job("tributary-2-b", JobState.FINISHED),
            job("someone-else", JobState.RUNNING));
    Placement placement =
        new Placement(directory(6), jobs(new FlinkJobs.Slots(32, 20, 2), overview));

    Placement.Room room = placement.requireRoom(TABLE, "blue");

    assertThat(room.used()).isEqualTo(2); // one live job of ours, parallelism 2
    assertThat(room.jobs()).isEqualTo(1);
    assertThat(room.free()).isEqualTo(4); // maxSlots 6 - 2, fewer than the cluster's 20
    assertThat(room.needed()).isEqualTo(2);
  }

  @Test
  void shouldRefuseAJobThatDoesNotFitNamingThePoolAndItsFreeSlots() {
    List<JobSummary> overview =
        List.of(job("tributary-1-a", JobState.RUNNING), job("tributary-2-b", JobState.RUNNING));
    Placement placement =
        new Placement(directory(5), jobs(new FlinkJobs.Slots(32, 20, 2), overview));

    assertThatThrownBy(() -> placement.requireRoom(TABLE, "blue"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.POOL_FULL);
              assertThat(e.getMessage()).contains("blue", "1 free task slot", "needs 2");
              assertThat(e.properties())
                  .containsEntry("pool", "blue")
                  .containsEntry("freeSlots", 1)
                  .containsEntry("neededSlots", 2);
            });
  }

  @Test
  void shouldAdmitAJobTheClusterHasNoFreeSlotForAndSayItWaits() {
    // A cluster that starts TaskManagers on demand has none free until it needs them.
    Placement placement =
        new Placement(directory(null), jobs(new FlinkJobs.Slots(4, 0, 1), List.of()));

    Placement.Room room = placement.requireRoom(TABLE, "default");

    assertThat(room.waits()).isTrue();
    assertThat(room.budget()).isNull();
    assertThat(room.free()).isZero();
  }

  @Test
  void shouldAskTheJobManagerForItsJobsOnlyWhenThePoolHasABudget() {
    FlinkJobs noOverview =
        (FlinkJobs)
            Proxy.newProxyInstance(
                FlinkJobs.class.getClassLoader(),
                new Class<?>[] {FlinkJobs.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("slots")) {
                    return new FlinkJobs.Slots(4, 4, 1);
                  }
                  throw new AssertionError("asked " + method.getName());
                });

    Placement.Room room = new Placement(directory(null), noOverview).requireRoom(TABLE, "default");

    assertThat(room.waits()).isFalse();
    assertThat(room.free()).isEqualTo(4);
  }

  @Test
  void shouldAcceptWhileThePoolDoesNotAnswerAndStillHoldTheQuota() {
    FlinkJobs down =
        (FlinkJobs)
            Proxy.newProxyInstance(
                FlinkJobs.class.getClassLoader(),
                new Class<?>[] {FlinkJobs.class},
                (proxy, method, args) -> {
                  throw new DependencyUnavailableException(
                      ExternalSystem.FLINK, "read cluster overview: Flink unreachable", null);
                });
    List<String> asked = new ArrayList<>();
    PoolQuotas quotas = (table, pool, slots) -> asked.add(pool + ":" + slots);

    Placement.Room room =
        new Placement(directory(3), down, quotas, PoolDefaults.NONE).requireRoom(TABLE, "blue");

    assertThat(room.unanswered()).contains("Flink unreachable");
    assertThat(room.waits()).isFalse();
    assertThat(asked).containsExactly("blue:2"); // blue's jobs run with parallelism 2

    PoolQuotas full =
        (table, pool, slots) -> {
          throw new ApiException(ErrorCode.QUOTA_EXCEEDED, "over");
        };
    assertThatThrownBy(
            () ->
                new Placement(directory(3), down, full, PoolDefaults.NONE)
                    .requireRoom(TABLE, "blue"))
        .isInstanceOfSatisfying(
            ApiException.class, e -> assertThat(e.code()).isEqualTo(ErrorCode.QUOTA_EXCEEDED));
  }

  @Test
  void shouldRefuseAPoolBeingDrained() {
    ComputePoolDirectory draining = blueDrainingIntoDefault();
    Placement placement = new Placement(draining, jobs(new FlinkJobs.Slots(4, 4, 1), List.of()));

    assertThatThrownBy(() -> placement.requireRoom(TABLE, "blue"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.CONFLICT);
              assertThat(e.getMessage()).contains("being drained into default");
            });
    assertThat(placement.requireRoom(TABLE, "default").free()).isEqualTo(4);
  }

  @Test
  void shouldRefuseAnUnknownPoolNamingThePoolsThereAre() {
    Placement placement =
        new Placement(directory(null), jobs(new FlinkJobs.Slots(4, 4, 1), List.of()));

    assertThatThrownBy(() -> placement.requireRoom(TABLE, "green"))
        .isInstanceOfSatisfying(
            ApiException.class,
            e -> {
              assertThat(e.code()).isEqualTo(ErrorCode.INVALID_OPTION_VALUE);
              assertThat(e.getMessage()).contains("'compute-pool' = 'green'", "default, blue");
              assertThat(e.properties())
                  .isEqualTo(Map.of("option", "compute-pool", "pool", "green"));
            });
  }

  static MaterializedTableDefinition definition(String with) {
    return ((Statement.CreateMaterializedTable)
            Parser.parse("CREATE MATERIALIZED TABLE t " + with + " AS SELECT a FROM s"))
        .definition();
  }

  /** Defaults of c.d: the database's when it sets one, else the catalog's. */
  static final ObjectName IN_D = new ObjectName("c", "d", "t");

  static Placement withDefaults(ComputePoolDirectory pools, String ofDatabase, String ofCatalog) {
    PoolDefaults defaults =
        (catalog, database) ->
            Optional.ofNullable(database.equals("d") ? ofDatabase : null)
                .or(() -> Optional.ofNullable(ofCatalog));
    return new Placement(
        pools, jobs(new FlinkJobs.Slots(4, 4, 1), List.of()), (table, pool, slots) -> {}, defaults);
  }

  @Test
  void shouldPlaceANewTableOnItsDatabasesDefaultElseItsCatalogsAndKeepAnExistingOneWhereItIs() {
    MaterializedTableDefinition bare = definition("");
    MaterializedTableDefinition named = definition("WITH ('compute-pool' = 'default')");

    Placement both = withDefaults(directory(null), "blue", "green");
    assertThat(both.placed(IN_D, Optional.empty(), bare).options())
        .containsEntry("compute-pool", "blue");
    assertThat(both.placed(IN_D, Optional.empty(), named)).isEqualTo(named); // named wins
    assertThat(
            both.placed(new ObjectName("c", "other", "t"), Optional.empty(), bare)
                .options()
                .get("compute-pool"))
        .isEqualTo("green"); // no database default: the catalog's

    // An existing table stays on its pool when a definition names none, whatever the defaults.
    MaterializedTableDefinition onBlue = definition("WITH ('compute-pool' = 'blue')");
    Placement none = withDefaults(directory(null), null, null);
    assertThat(none.placed(IN_D, Optional.of(onBlue), bare)).isEqualTo(onBlue);
    assertThat(both.placed(IN_D, Optional.of(bare), bare)).isEqualTo(bare);

    // No default, or the default pool 'default': the definition stays as written.
    assertThat(none.placed(IN_D, Optional.empty(), bare)).isEqualTo(bare);
    assertThat(
            withDefaults(directory(null), "default", "blue").placed(IN_D, Optional.empty(), bare))
        .isEqualTo(bare);
  }

  @Test
  void shouldPlaceOnTheDrainsTargetWhenTheDefaultPoolIsBeingDrained() {
    ComputePoolDirectory draining = blueDrainingIntoDefault();

    assertThat(withDefaults(draining, "blue", null).placed(IN_D, Optional.empty(), definition("")))
        .isEqualTo(definition(""));
  }

  @Test
  void shouldCheckTheQuotaAgainAtCommitWithTheSlotsThePlanFoundAndNoRemoteCall() {
    List<String> atCommit = new ArrayList<>();
    PoolQuotas quotas =
        new PoolQuotas() {
          @Override
          public void require(ObjectName table, String pool, int slots) {}

          @Override
          public void requireAtCommit(ObjectName table, String pool, int slots) {
            atCommit.add(pool + ":" + slots);
          }
        };
    List<String> asked = new ArrayList<>();
    FlinkJobs counted =
        (FlinkJobs)
            Proxy.newProxyInstance(
                FlinkJobs.class.getClassLoader(),
                new Class<?>[] {FlinkJobs.class},
                (proxy, method, args) -> {
                  asked.add(method.getName());
                  return switch (method.getName()) {
                    case "slots" -> new FlinkJobs.Slots(8, 8, 3);
                    case "overview" -> List.of();
                    default -> throw new UnsupportedOperationException(method.getName());
                  };
                });
    Placement placement = new Placement(directory(null), counted, quotas, PoolDefaults.NONE);

    placement.requireRoom(TABLE, "default"); // the plan: default's jobs run with parallelism 3
    asked.clear();
    placement.requireQuotaAtCommit(TABLE, "default", true);
    placement.requireQuotaAtCommit(TABLE, "default", false); // a FULL table takes no slot
    placement.requireQuotaAtCommit(TABLE, "blue", true); // blue's own parallelism, 2

    assertThat(atCommit).containsExactly("default:3", "default:0", "blue:2");
    assertThat(asked).isEmpty();
  }

  @Test
  void shouldPlaceANewTableOnThePoolWithTheMostRoomWhenItsDefaultIsTheChoice() {
    // default's cluster has 1 free slot; blue has 8 free but a budget of 3 (maxSlots 3).
    FlinkJobs byPool =
        (FlinkJobs)
            Proxy.newProxyInstance(
                FlinkJobs.class.getClassLoader(),
                new Class<?>[] {FlinkJobs.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "slots" ->
                          args[0].equals("blue")
                              ? new FlinkJobs.Slots(8, 8, 1)
                              : new FlinkJobs.Slots(4, 1, 1);
                      case "overview" -> List.of();
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
    PoolDefaults choice = (catalog, database) -> Optional.of(PoolDefaults.LEAST_LOADED);
    MaterializedTableDefinition bare = definition("");

    Placement placement = new Placement(directory(3), byPool, (table, pool, slots) -> {}, choice);
    assertThat(placement.placed(IN_D, Optional.empty(), bare).options())
        .containsEntry("compute-pool", "blue");

    // The database may take no more of blue: default, though it has less room.
    PoolQuotas noBlue =
        (table, pool, slots) -> {
          if (pool.equals("blue")) {
            throw new ApiException(ErrorCode.QUOTA_EXCEEDED, "over");
          }
        };
    assertThat(
            new Placement(directory(3), byPool, noBlue, choice)
                .placed(IN_D, Optional.empty(), bare))
        .isEqualTo(bare);
  }
}
