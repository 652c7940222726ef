package dev.tributary.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which option values are secrets, and how they are shown: as {@value #MASK}. A key names a secret
 * as Flink's own redaction decides (password, secret, token, jaas, api keys, auth headers), plus
 * credentials and keys such as {@code fs.azure.account.key} or {@code ssl.keystore.key}; option
 * keys that only begin with {@code key.} (the Kafka connector's key format) do not.
 */
public final class Secrets {

  public static final String MASK = "******";

  private static final String[] WORDS = {
    "password",
    "secret",
    "token",
    "jaas",
    "credential",
    "apikey",
    "api-key",
    "api_key",
    "auth-params",
    "service-key",
    "basic-auth",
    "http-headers",
    "private-key"
  };

  /** {@code 'key' = 'value'}, the way options are written in SQL; the value may be cut off. */
  private static final Pattern SQL_OPTION =
      Pattern.compile("'((?:[^']|'')*)'(\\s*=\\s*)'(?:[^']|'')*(?:'|$)", Pattern.MULTILINE);

  /** {@code 'key' = 'value'}, with the value captured. */
  private static final Pattern SQL_VALUE =
      Pattern.compile("'((?:[^']|'')*)'\\s*=\\s*'((?:[^']|'')*)(?:'|$)", Pattern.MULTILINE);

  /** {@code key=value} in a map's text, as a message might print options. */
  private static final Pattern MAP_ENTRY = Pattern.compile("([\\w.\\-]+)=([^,}\\n]*)");

  private Secrets() {}

  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (String word : WORDS) {
      if (k.contains(word)) {
        return true;
      }
    }
    String last = k.substring(k.lastIndexOf('.') + 1);
    return last.equals("key") || last.endsWith("-key") || last.endsWith("_key");
  }

  /** The options with every secret value masked. */
  public static Map<String, String> masked(Map<String, String> options) {
    Map<String, String> out = new TreeMap<>();
    options.forEach((k, v) -> out.put(k, isSecret(k) ? MASK : v));
    return out;
  }

  /**
   * The values of secret options written in {@code sql} ({@code 'k' = 'v'}), as written (quotes
   * doubled) and as meant; a value cut off by the end of the text counts too.
   */
  public static Set<String> valuesIn(String sql) {
    Set<String> values = new HashSet<>();
    if (sql == null) {
      return values;
    }
    Matcher m = SQL_VALUE.matcher(sql);
    while (m.find()) {
      if (isSecret(m.group(1).replace("''", "'")) && m.group(2).length() >= 4) {
        values.add(m.group(2));
        values.add(m.group(2).replace("''", "'"));
      }
    }
    return values;
  }

  /** The text with each of the values replaced by {@value #MASK}, longest first. */
  public static String mask(String text, Set<String> values) {
    if (text == null) {
      return null;
    }
    String out = text;
    List<String> longestFirst = new ArrayList<>(values);
    longestFirst.sort(Comparator.comparingInt(String::length).reversed());
    for (String value : longestFirst) {
      out = out.replace(value, MASK);
    }
    // A snippet may begin or end inside a value: its visible part is masked too, in pieces of
    // at least 8 characters from either end.
    for (String value : longestFirst) {
      for (int cut = value.length() - 1; cut >= 8; cut--) {
        String head = value.substring(0, cut);
        String tail = value.substring(value.length() - cut);
        if (out.endsWith(head)) {
          out = out.substring(0, out.length() - head.length()) + MASK;
        }
        if (out.startsWith(tail)) {
          out = MASK + out.substring(tail.length());
        }
        int lineStart = out.indexOf('\n');
        if (lineStart > 0 && out.substring(0, lineStart).endsWith(head)) {
          out = out.substring(0, lineStart - head.length()) + MASK + out.substring(lineStart);
        }
      }
    }
    return out;
  }

  /** Masks the values of secret options written in SQL ({@code 'k' = 'v'}) or as {@code k=v}. */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    Matcher m = SQL_OPTION.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String key = m.group(1).replace("''", "'");
      String replacement =
          isSecret(key) ? "'" + m.group(1) + "'" + m.group(2) + "'" + MASK + "'" : m.group();
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    Matcher entries = MAP_ENTRY.matcher(out.toString());
    StringBuilder masked = new StringBuilder();
    while (entries.find()) {
      String replacement =
          isSecret(entries.group(1)) ? entries.group(1) + "=" + MASK : entries.group();
      entries.appendReplacement(masked, Matcher.quoteReplacement(replacement));
    }
    entries.appendTail(masked);
    return masked.toString();
  }
}
