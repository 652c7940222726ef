package dev.tributary.statement;

import dev.tributary.sql.Parser;
import dev.tributary.sql.Printer;
import dev.tributary.system.ApiException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.interceptor.TransactionAspectSupport;

/**
 * Runs scripts of statements. The whole script is parsed and statically validated before anything
 * runs, and it runs in one transaction: if any statement fails, nothing of the script is kept.
 */
@Service
public class StatementService {

  private final StatementExecutor.Factory executors;
  private final String defaultCatalog;
  private final String defaultDatabase;

  StatementService(
      StatementExecutor.Factory executors,
      @Value("${tributary.statements.default-catalog:default_catalog}") String defaultCatalog,
      @Value("${tributary.statements.default-database:default_database}") String defaultDatabase) {
    this.executors = executors;
    this.defaultCatalog = defaultCatalog;
    this.defaultDatabase = defaultDatabase;
  }

  @Transactional
  public List<StatementResult> execute(String script, String catalog, String database) {
    return run(script, catalog, database);
  }

  /**
   * Runs the script as {@link #execute} would, then rolls its transaction back: every statement is
   * planned and checked, nothing is stored, and the reconciler is not woken.
   */
  @Transactional
  public List<StatementResult> dryRun(String script, String catalog, String database) {
    List<StatementResult> results = run(script, catalog, database);
    TransactionAspectSupport.currentTransactionStatus().setRollbackOnly();
    return results;
  }

  private List<StatementResult> run(String script, String catalog, String database) {
    List<Parser.Parsed> statements = Parser.parseScript(script);
    // Nothing of a script runs if any of its statements asks for what cannot be carried out.
    statements.forEach(Parser.Parsed::requireSupported);
    StatementExecutor executor =
        executors.create(orDefault(catalog, defaultCatalog), orDefault(database, defaultDatabase));
    List<StatementResult> results = new ArrayList<>();
    for (Parser.Parsed parsed : statements) {
      try {
        results.add(executor.execute(parsed));
      } catch (ApiException e) {
        throw withIndex(e, parsed.index());
      }
    }
    return results;
  }

  /** Parses and validates only; returns each statement's kind and canonical text. */
  public List<StatementResult> validate(String script) {
    List<Parser.Parsed> statements = Parser.parseScript(script);
    statements.forEach(Parser.Parsed::requireSupported);
    return statements.stream()
        .map(
            p ->
                new StatementResult(
                    p.index(),
                    p.statement().kind(),
                    Printer.print(p.statement()),
                    null,
                    "VALID",
                    null,
                    null,
                    null))
        .toList();
  }

  private static ApiException withIndex(ApiException e, int index) {
    Map<String, Object> properties = new LinkedHashMap<>(e.properties());
    properties.put("statementIndex", index);
    return new ApiException(e.code(), e.getMessage(), properties);
  }

  private static String orDefault(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value;
  }
}
