package dev.tributary.adapter.quartz;

import dev.tributary.port.RefreshSchedules;
import java.time.Instant;
import java.util.UUID;
import org.quartz.DisallowConcurrentExecution;
import org.quartz.Job;
import org.quartz.JobExecutionContext;
import org.quartz.JobExecutionException;
import org.springframework.beans.factory.annotation.Autowired;

/**
 * A firing of a table's refresh schedule: hands it to {@link RefreshSchedules.Firings}, which
 * records the refresh (once per slot) and wakes the reconciler; the refresh itself runs in the
 * reconciler, which follows its job to the end. Never two firings of one table at once.
 */
@DisallowConcurrentExecution
public class RefreshFiringJob implements Job {

  @Autowired private RefreshSchedules.Firings firings;

  @Override
  public void execute(JobExecutionContext context) throws JobExecutionException {
    UUID table =
        UUID.fromString(context.getMergedJobDataMap().getString(QuartzRefreshSchedules.TABLE));
    Instant scheduled =
        context.getScheduledFireTime() == null
            ? Instant.now()
            : context.getScheduledFireTime().toInstant();
    Instant at = context.getFireTime() == null ? Instant.now() : context.getFireTime().toInstant();
    try {
      firings.fired(table, scheduled, at);
    } catch (RuntimeException e) {
      throw new JobExecutionException("Refresh firing of table " + table + " failed", e, false);
    }
  }
}
