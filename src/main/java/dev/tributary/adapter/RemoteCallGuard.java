package dev.tributary.adapter;

import dev.tributary.port.FlinkJobs;
import dev.tributary.port.FlinkSql;
import dev.tributary.port.SchemaRegistry;
import dev.tributary.port.Topics;
import dev.tributary.system.Histograms;
import dev.tributary.system.ServerTiming;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.aopalliance.intercept.MethodInterceptor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * A call to Kafka, the registry or Flink made while a database transaction is open holds a pooled
 * connection (and the transaction's locks) for as long as the remote system takes, so a slow
 * dependency starves requests that only read the store. The rule is: no remote call inside a
 * transaction. This guard wraps every port adapter, times every call in the histogram {@code
 * tributary_remote_call_seconds{system,outcome}} (outcome {@code ok} or {@code error}: the call
 * threw) and counts violations in {@code tributary_remote_calls_in_transaction_total}; with {@code
 * tributary.guard.remote-calls-in-transaction=fail} (the integration tests) the call is refused.
 */
@Component
public class RemoteCallGuard implements BeanPostProcessor, EnvironmentAware {

  private static final Logger log = LoggerFactory.getLogger(RemoteCallGuard.class);

  private static final Map<Class<?>, String> PORTS =
      Map.of(
          Topics.class, "kafka",
          SchemaRegistry.class, "schemaRegistry",
          FlinkSql.class, "flinkSqlGateway",
          FlinkJobs.class, "flinkJobManager");

  private final ObjectProvider<MeterRegistry> meters;
  private final ObjectProvider<Tracer> tracers;
  private final Set<String> reported = ConcurrentHashMap.newKeySet();
  private boolean fail;

  public RemoteCallGuard(ObjectProvider<MeterRegistry> meters, ObjectProvider<Tracer> tracers) {
    this.meters = meters;
    this.tracers = tracers;
  }

  @Override
  public void setEnvironment(Environment environment) {
    fail =
        "fail"
            .equalsIgnoreCase(
                environment.getProperty("tributary.guard.remote-calls-in-transaction", "warn"));
  }

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    String system = null;
    for (Map.Entry<Class<?>, String> port : PORTS.entrySet()) {
      if (port.getKey().isInstance(bean)) {
        system = port.getValue();
      }
    }
    if (system == null) {
      return bean;
    }
    String name = system;
    ProxyFactory proxy = new ProxyFactory(bean);
    proxy.setProxyTargetClass(true);
    proxy.addAdvice(
        (MethodInterceptor)
            invocation -> {
              if (TransactionSynchronizationManager.isActualTransactionActive()) {
                violated(name, invocation.getMethod().getName());
              }
              long started = System.nanoTime();
              String outcome = "error";
              Tracer tracer = tracers.getIfAvailable();
              Span span =
                  tracer == null
                      ? null
                      : tracer
                          .nextSpan()
                          .name(name + " " + invocation.getMethod().getName())
                          .tag("system", name)
                          .start();
              try (Tracer.SpanInScope scope = tracer == null ? null : tracer.withSpan(span)) {
                Object result = invocation.proceed();
                outcome = "ok";
                return result;
              } catch (Throwable e) {
                if (span != null) {
                  span.error(e);
                }
                throw e;
              } finally {
                long took = System.nanoTime() - started;
                called(name, outcome, took);
                ServerTiming.add(name, took);
                if (span != null) {
                  span.tag("outcome", outcome).end();
                }
              }
            });
    return proxy.getProxy(bean.getClass().getClassLoader());
  }

  /** Every call, by system and outcome: what a request or a pass costs the systems around it. */
  private void called(String system, String outcome, long nanos) {
    MeterRegistry registry = meters.getIfAvailable();
    if (registry != null) {
      Timer.builder("tributary.remote.call")
          .description(
              "Calls to Kafka, the registry and Flink, by port (system) and outcome (ok, or error:"
                  + " the call threw)")
          .serviceLevelObjectives(Histograms.CALLS)
          .tag("system", system)
          .tag("outcome", outcome)
          .register(registry)
          .record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  private void violated(String system, String method) {
    MeterRegistry registry = meters.getIfAvailable();
    if (registry != null) {
      Counter.builder("tributary.remote.calls.in.transaction")
          .description("Calls to Kafka, the registry or Flink made inside a database transaction")
          .tag("system", system)
          .register(registry)
          .increment();
    }
    String call = system + "." + method;
    if (fail) {
      throw new IllegalStateException(call + " called inside a database transaction");
    }
    if (reported.add(call)) {
      log.warn("{} called inside a database transaction", call, new IllegalStateException("here"));
    }
  }
}
