package dev.tributary.cli;

import dev.tributary.cli.CliClient.CliException;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * What picocli matched for one verb, resolved against the environment and the defaults: the
 * positional arguments, and every option by its long name (repeatable ones listed).
 */
final class Options {
  final String verb;
  final List<String> args = new ArrayList<>();
  final Map<String, List<String>> options = new LinkedHashMap<>();
  String url;
  String apiKey;
  String catalog;
  String database;
  boolean explicitDatabase;
  boolean json;

  private Options(String verb) {
    this.verb = verb;
  }

  /** Parses a command line into the verb's options, as {@link Cli#run} would. */
  static Options parse(String[] argv, Map<String, String> env) {
    ParseResult parsed = Verbs.commandLine().parseArgs(argv);
    if (parsed.subcommand() == null) {
      throw new CliException("no verb given");
    }
    return from(parsed.subcommand(), env);
  }

  static Options from(ParseResult verb, Map<String, String> env) {
    Options o = new Options(verb.commandSpec().name());
    for (OptionSpec option : verb.matchedOptions()) {
      String key = option.longestName().replaceFirst("^--?", "");
      List<String> values =
          option.arity().max() == 0 ? List.of("true") : option.originalStringValues();
      o.options.computeIfAbsent(key, k -> new ArrayList<>()).addAll(values);
    }
    for (PositionalParamSpec positional : verb.matchedPositionals()) {
      o.args.addAll(positional.originalStringValues());
    }
    o.url = url(first(o.value("url"), env.get("TRIBUTARY_URL"), "http://localhost:8080"));
    o.apiKey = first(o.value("api-key"), env.get("TRIBUTARY_API_KEY"), null);
    o.explicitDatabase = o.value("database") != null || env.get("TRIBUTARY_DATABASE") != null;
    o.catalog = first(o.value("catalog"), env.get("TRIBUTARY_CATALOG"), "default_catalog");
    o.database = first(o.value("database"), env.get("TRIBUTARY_DATABASE"), "default_database");
    String output = first(o.value("output"), env.get("TRIBUTARY_OUTPUT"), "text");
    if (!output.equals("text") && !output.equals("json")) {
      throw new CliException("--output is text or json, not '" + output + "'");
    }
    o.json = output.equals("json");
    o.waitFor(); // a bad --wait or --stable is an error before anything is sent
    o.stable();
    return o;
  }

  /** The service's base URL, refused with the reason unless it is an http(s) URL with a host. */
  private static String url(String text) {
    String why = null;
    if (!text.toLowerCase(Locale.ROOT).matches("https?://.*")) {
      why = "it has no http:// or https:// scheme";
    } else {
      try {
        why = new URI(text).getHost() == null ? "it has no host" : null;
      } catch (URISyntaxException e) {
        why = "it is not a URL (" + e.getReason() + ")";
      }
    }
    if (why != null) {
      throw new CliException(
          "the service URL (--url or TRIBUTARY_URL) is '"
              + text
              + "', but "
              + why
              + "; give one such as http://localhost:8080");
    }
    return text;
  }

  boolean has(String key) {
    return options.containsKey(key);
  }

  String value(String key) {
    List<String> v = options.get(key);
    return v == null ? null : v.get(v.size() - 1);
  }

  List<String> values(String key) {
    return options.getOrDefault(key, List.of());
  }

  String oneName() {
    return args.get(0); // picocli requires exactly one (Verbs.OneTable)
  }

  String qualified(String name) {
    return name.contains(".") ? name : quote(catalog) + "." + quote(database) + "." + quote(name);
  }

  String databasePath() {
    return "/v1/catalogs/" + CliClient.encode(catalog) + "/databases/" + CliClient.encode(database);
  }

  String tablePath(String name) {
    return databasePath() + "/materialized-tables/" + CliClient.encode(name);
  }

  /** Every .sql file of the -f arguments: a folder's (not its subfolders') in file-name order. */
  List<Path> files() {
    List<Path> found = new ArrayList<>();
    for (String f : values("file")) {
      Path path = Path.of(f);
      if (Files.isDirectory(path)) {
        try (Stream<Path> list = Files.list(path)) {
          list.filter(p -> p.getFileName().toString().endsWith(".sql"))
              .filter(Files::isRegularFile)
              .sorted((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()))
              .forEach(found::add);
        } catch (IOException e) {
          throw new CliException("cannot list " + path + ": " + e.getMessage());
        }
      } else if (Files.isRegularFile(path)) {
        found.add(path);
      } else {
        throw new CliException(path + " is not a file or folder");
      }
    }
    return found;
  }

  Duration waitFor() {
    return duration("wait", waitText());
  }

  String waitText() {
    return first(value("wait"), null, "10m");
  }

  /** How long apply sees an object RUNNING before it counts as running (default 10 s). */
  Duration stable() {
    return duration("stable", first(value("stable"), null, "10s"));
  }

  private static Duration duration(String option, String text) {
    try {
      return Duration.parse("PT" + text.toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      throw new CliException(
          "--" + option + " takes a duration such as 90s, 10m or 1h, not '" + text + "'");
    }
  }

  private static String quote(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }

  private static String first(String a, String b, String c) {
    return a != null && !a.isBlank() ? a : b != null && !b.isBlank() ? b : c;
  }
}
