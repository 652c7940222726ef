package dev.tributary.port;

/**
 * Flink's planner in the service's own process, as a {@link FlinkSql} that plans and describes but
 * runs no job: what validation asks before a gateway (see {@code QueryPlanner}). A holder, not a
 * {@link FlinkSql} bean itself: its calls are no remote system's.
 */
public record LocalPlanner(FlinkSql sql) {}
