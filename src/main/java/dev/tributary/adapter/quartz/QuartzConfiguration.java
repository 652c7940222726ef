package dev.tributary.adapter.quartz;

import org.quartz.Scheduler;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the refresh schedules to the Quartz scheduler that Spring Boot configures. */
@Configuration(proxyBeanMethods = false)
class QuartzConfiguration {

  @Bean
  QuartzRefreshSchedules refreshSchedules(Scheduler scheduler) {
    return new QuartzRefreshSchedules(scheduler);
  }
}
