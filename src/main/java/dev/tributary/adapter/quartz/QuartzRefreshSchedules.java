package dev.tributary.adapter.quartz;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.RefreshSchedules;
import java.time.Instant;
import java.util.Date;
import java.util.Optional;
import java.util.Set;
import java.util.TimeZone;
import java.util.UUID;
import org.quartz.CalendarIntervalScheduleBuilder;
import org.quartz.CronScheduleBuilder;
import org.quartz.JobBuilder;
import org.quartz.JobDetail;
import org.quartz.JobKey;
import org.quartz.Scheduler;
import org.quartz.SchedulerException;
import org.quartz.Trigger;
import org.quartz.TriggerBuilder;
import org.quartz.TriggerKey;

/**
 * {@link RefreshSchedules} on Quartz with its JDBC job store, clustered (application.yml): a firing
 * is taken by one replica; a trigger misfired while no replica ran fires once when one is back
 * ({@code FireAndProceed}), then keeps its slots. Each table has one job and one trigger; the
 * trigger carries a signature of its schedule, so an unchanged schedule is left alone.
 */
public class QuartzRefreshSchedules implements RefreshSchedules {

  static final String GROUP = "tributary-refresh";
  static final String TABLE = "table";
  private static final String SIGNATURE = "signature";

  private final Scheduler scheduler;

  public QuartzRefreshSchedules(Scheduler scheduler) {
    this.scheduler = scheduler;
  }

  @Override
  public void ensure(UUID table, Schedule schedule, boolean paused) {
    String signature =
        schedule.cron() + "|" + schedule.every() + "|" + schedule.anchor() + "|" + schedule.zone();
    try {
      Trigger existing = scheduler.getTrigger(triggerKey(table));
      if (existing == null || !signature.equals(existing.getJobDataMap().getString(SIGNATURE))) {
        JobDetail job =
            JobBuilder.newJob(RefreshFiringJob.class)
                .withIdentity(jobKey(table))
                .usingJobData(TABLE, table.toString())
                .storeDurably()
                .build();
        scheduler.scheduleJob(job, Set.of(trigger(table, schedule, signature)), true);
        if (paused) {
          scheduler.pauseTrigger(triggerKey(table));
        }
        return;
      }
      Trigger.TriggerState state = scheduler.getTriggerState(triggerKey(table));
      if (paused && state != Trigger.TriggerState.PAUSED) {
        scheduler.pauseTrigger(triggerKey(table));
      } else if (!paused && state == Trigger.TriggerState.PAUSED) {
        scheduler.resumeTrigger(triggerKey(table));
      }
    } catch (SchedulerException e) {
      throw unavailable("schedule refreshes of table " + table, e);
    }
  }

  private static Trigger trigger(UUID table, Schedule schedule, String signature) {
    TriggerBuilder<Trigger> builder =
        TriggerBuilder.newTrigger()
            .withIdentity(triggerKey(table))
            .usingJobData(SIGNATURE, signature);
    TimeZone zone = TimeZone.getTimeZone(schedule.zone());
    if (schedule.cron() != null) {
      return builder
          .withSchedule(
              CronScheduleBuilder.cronSchedule(schedule.cron())
                  .inTimeZone(zone)
                  .withMisfireHandlingInstructionFireAndProceed())
          .build();
    }
    // The first slot after now on the grid anchor + k * every: later fires keep to that grid.
    long every = schedule.every().toMillis();
    long since = Instant.now().toEpochMilli() - schedule.anchor().toEpochMilli();
    Instant first = schedule.anchor().plusMillis((Math.floorDiv(since, every) + 1) * every);
    return builder
        .startAt(Date.from(first))
        .withSchedule(
            CalendarIntervalScheduleBuilder.calendarIntervalSchedule()
                .withIntervalInSeconds((int) schedule.every().toSeconds())
                .inTimeZone(zone)
                .withMisfireHandlingInstructionFireAndProceed())
        .build();
  }

  @Override
  public void remove(UUID table) {
    try {
      scheduler.deleteJob(jobKey(table));
    } catch (SchedulerException e) {
      throw unavailable("remove the refresh schedule of table " + table, e);
    }
  }

  @Override
  public Optional<Instant> nextFire(UUID table) {
    try {
      Trigger trigger = scheduler.getTrigger(triggerKey(table));
      if (trigger == null
          || scheduler.getTriggerState(triggerKey(table)) == Trigger.TriggerState.PAUSED) {
        return Optional.empty();
      }
      return Optional.ofNullable(trigger.getNextFireTime()).map(Date::toInstant);
    } catch (SchedulerException e) {
      throw unavailable("read the refresh schedule of table " + table, e);
    }
  }

  static JobKey jobKey(UUID table) {
    return JobKey.jobKey(table.toString(), GROUP);
  }

  static TriggerKey triggerKey(UUID table) {
    return TriggerKey.triggerKey(table.toString(), GROUP);
  }

  private static DependencyUnavailableException unavailable(String what, SchedulerException e) {
    return new DependencyUnavailableException(
        ExternalSystem.SCHEDULER, what + ": " + e.getMessage(), e);
  }
}
