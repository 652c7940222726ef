package dev.tributary.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Properties;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The command line's grammar as picocli declares it: the verbs, their options and their help. These
 * classes hold no behaviour: {@link Cli} reads what picocli matched into {@link Cli.Options} and
 * does the work, so the grammar reads in one place and the help, the suggestions for a mistyped
 * verb and the completion scripts all come from it.
 */
@Command(
    name = "tributary",
    mixinStandardHelpOptions = true,
    versionProvider = Verbs.Version.class,
    synopsisSubcommandLabel = "VERB",
    description = {
      "The command line of a Tributary service: it talks to the service over its REST API.",
      "With no arguments, or with the verb serve, the service jar starts the service instead."
    },
    commandListHeading = "%nVerbs:%n",
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {
      "0:success; for plan, nothing to change",
      "2:plan: a plan with changes",
      "1:an error, a rejection, a failed object or a wait that ran out"
    },
    subcommands = {
      Verbs.Plan.class,
      Verbs.Apply.class,
      Verbs.Status.class,
      Verbs.Suspend.class,
      Verbs.Resume.class,
      Verbs.Refresh.class,
      Verbs.Drop.class,
      Verbs.Events.class,
      Verbs.Lineage.class,
      Verbs.Serve.class,
      HelpCommand.class,
      AutoComplete.GenerateCompletion.class
    })
final class Verbs {

  /** The grammar as a command line, parsed as every run parses it. */
  static CommandLine commandLine() {
    CommandLine line = new CommandLine(new Verbs());
    line.setExpandAtFiles(false); // a name starting with @ is a name, not a file of arguments
    return line;
  }

  /** Which service, as whom, and the database that unqualified names are in. */
  static final class Service {
    @Option(
        names = "--url",
        paramLabel = "URL",
        description = "the service (TRIBUTARY_URL; default http://localhost:8080)")
    String url;

    @Option(
        names = "--api-key",
        paramLabel = "KEY",
        description = "an API key or JWT (TRIBUTARY_API_KEY)")
    String apiKey;

    @Option(
        names = "--catalog",
        paramLabel = "CATALOG",
        description = "for unqualified names (TRIBUTARY_CATALOG; default default_catalog)")
    String catalog;

    @Option(
        names = "--database",
        paramLabel = "DATABASE",
        description = "for unqualified names (TRIBUTARY_DATABASE; default default_database)")
    String database;

    @Option(
        names = {"-o", "--output"},
        paramLabel = "text|json",
        description = "json prints the service's answers as they are (TRIBUTARY_OUTPUT)")
    String output;
  }

  /** The .sql files of a declared set. */
  static final class SqlFiles {
    @Option(
        names = {"-f", "--file"},
        paramLabel = "DIR|FILE",
        description = "a .sql file, or a folder whose .sql files are read in file-name order")
    List<String> files;

    @Option(names = "--prune", description = "drop what the database holds and the files do not")
    boolean prune;

    @Option(names = "--fail-on-warning", description = "a plan with warnings is an error (exit 1)")
    boolean failOnWarning;
  }

  /** One table, by name (qualified, or in --catalog and --database). */
  static final class OneTable {
    @Parameters(paramLabel = "NAME", arity = "1", description = "the table")
    String name;
  }

  @Command(
      name = "plan",
      mixinStandardHelpOptions = true,
      description = {
        "What applying the .sql files would do, object by object.",
        "Exit 0 no changes, 2 changes (warnings included), 1 an error or a rejection, or a"
            + " warning with --fail-on-warning."
      })
  static final class Plan {
    @Mixin Service service;
    @Mixin SqlFiles sql;
  }

  @Command(
      name = "apply",
      mixinStandardHelpOptions = true,
      description = {
        "Apply the .sql files, then wait until each object is RUNNING (for --stable in a row),"
            + " STOPPED, SUCCEEDED or FAILED.",
        "Exit 1 when one fails or the wait runs out."
      })
  static final class Apply {
    @Mixin Service service;
    @Mixin SqlFiles sql;

    @Option(names = "--wait", paramLabel = "DURATION", description = "default 10m")
    String waitFor;

    @Option(
        names = "--stable",
        paramLabel = "DURATION",
        description = "how long an object must stay RUNNING to count as running; default 10s")
    String stable;

    @Option(
        names = "--plan-id",
        paramLabel = "ID",
        description = "apply this plan (from plan), refused if the database changed since")
    String planId;
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "The database's tables, or one table (exit 1 when it is FAILED).")
  static final class Status {
    @Mixin Service service;

    @Parameters(paramLabel = "NAME", arity = "0..1", description = "one table")
    String name;
  }

  @Command(
      name = "suspend",
      mixinStandardHelpOptions = true,
      description = "Stop a table's job with a savepoint.")
  static final class Suspend {
    @Mixin Service service;
    @Mixin OneTable table;
  }

  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description = "Start a suspended table's job from its savepoint.")
  static final class Resume {
    @Mixin Service service;
    @Mixin OneTable table;
  }

  @Command(
      name = "refresh",
      mixinStandardHelpOptions = true,
      description = "Refresh a table now, or some of its partitions.")
  static final class Refresh {
    @Mixin Service service;
    @Mixin OneTable table;

    @Option(names = "--partition", paramLabel = "KEY=VALUE", description = "repeatable")
    List<String> partitions;
  }

  @Command(
      name = "drop",
      mixinStandardHelpOptions = true,
      description = "Drop a table: its job, topic and subjects are removed.")
  static final class Drop {
    @Mixin Service service;
    @Mixin OneTable table;
  }

  @Command(
      name = "events",
      mixinStandardHelpOptions = true,
      description = "A table's events, or the database's.")
  static final class Events {
    @Mixin Service service;

    @Parameters(paramLabel = "NAME", arity = "0..1", description = "one table")
    String name;

    @Option(names = "--follow", description = "keep printing events as they happen")
    boolean follow;
  }

  @Command(name = "lineage", mixinStandardHelpOptions = true, description = "What feeds what.")
  static final class Lineage {
    @Mixin Service service;

    @Option(
        names = "--format",
        paramLabel = "mermaid|dot|json",
        description = "default mermaid (json with --output json)")
    String format;
  }

  @Command(
      name = "serve",
      description = "Start the service (the service jar only; the same as no arguments).")
  static final class Serve {}

  /** The build's version and commit, from the git.properties the build writes. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties git = new Properties();
      try (InputStream in = Verbs.class.getResourceAsStream("/git.properties")) {
        if (in != null) {
          git.load(in);
        }
      } catch (IOException e) {
        // no version to show is not an error of the command line
      }
      String version = git.getProperty("git.build.version", "unknown");
      String commit = git.getProperty("git.commit.id.abbrev", "unknown");
      boolean dirty = Boolean.parseBoolean(git.getProperty("git.dirty", "false"));
      return new String[] {
        "tributary " + version + " (commit " + commit + (dirty ? ", with local changes" : "") + ")"
      };
    }
  }
}
