package dev.tributary.sql;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiConsumer;

/**
 * Which option values are secrets, and how they are shown: as {@value #MASK}. A key names a secret
 * when any of three lists says so: Kafka's client configuration (every key of type PASSWORD of the
 * producer, consumer and admin configs, {@link KafkaClientOptions#passwords()}), Flink's sensitive
 * key rule ({@code GlobalConfiguration.isSensitive}: the words below; SecretsTest checks that we
 * agree with it), and our own (basic auth user info, passphrases, credentials, private keys,
 * anything ending in {@code key} except the Kafka connector's {@code key.} options).
 *
 * <p>The scans over text are written by hand, not as regular expressions: they read user input of
 * up to a script's length, and each must cost time linear in it (a backtracking pattern over a long
 * run of identifier characters cost the square of its length).
 */
public final class Secrets {

  public static final String MASK = "******";

  /** Flink's own list: {@code GlobalConfiguration.SENSITIVE_KEYS} (2.2), matched as substrings. */
  static final List<String> FLINK_WORDS =
      List.of(
          "password",
          "secret",
          "fs.azure.account.key",
          "apikey",
          "api-key",
          "auth-params",
          "service-key",
          "token",
          "basic-auth",
          "jaas.config",
          "http-headers");

  /** Ours, beside Flink's: words that name a secret in other clients' keys. */
  private static final List<String> OWN_WORDS =
      List.of(
          "jaas",
          "credential",
          "passphrase",
          "api_key",
          "private-key",
          "private.key",
          "privatekey",
          "user.info",
          "user-info",
          "userinfo",
          "basic.auth");

  /** A value shorter than this is not looked for in messages: it would mask common words. */
  private static final int MIN_VALUE_LENGTH = 4;

  /** The shortest end of a value masked where a snippet cuts it. */
  private static final int MIN_PIECE = 8;

  private Secrets() {}

  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    for (String word : FLINK_WORDS) {
      if (k.contains(word)) {
        return true;
      }
    }
    for (String word : OWN_WORDS) {
      if (k.contains(word)) {
        return true;
      }
    }
    if (KafkaClientOptions.isPassword(k)) {
      return true;
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
    SqlOptions.scan(
        sql,
        (key, value) -> {
          String written = sql.substring(value.start(), value.end());
          if (isSecret(unquote(sql.substring(key.start(), key.end())))
              && written.length() >= MIN_VALUE_LENGTH) {
            values.add(written);
            values.add(unquote(written));
          }
        });
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
    // A snippet may begin or end inside a value (or its first line may): the visible part is
    // masked too, when it is at least 8 characters of either end.
    for (String value : longestFirst) {
      int newline = out.indexOf('\n');
      String firstLine = newline < 0 ? out : out.substring(0, newline);
      String rest = newline < 0 ? "" : out.substring(newline);
      firstLine = maskEnds(firstLine, value);
      out = newline < 0 ? firstLine : firstLine + maskEnds(rest, value);
    }
    return out;
  }

  /** Masks a piece of {@code value} that {@code text} begins or ends with. */
  private static String maskEnds(String text, String value) {
    String out = text;
    int head = Overlaps.suffixPrefix(out, value);
    if (head >= MIN_PIECE && head < value.length()) {
      out = out.substring(0, out.length() - head) + MASK;
    }
    int tail = Overlaps.prefixSuffix(out, value);
    if (tail >= MIN_PIECE && tail < value.length()) {
      out = MASK + out.substring(tail);
    }
    return out;
  }

  /** Masks the values of secret options written in SQL ({@code 'k' = 'v'}) or as {@code k=v}. */
  public static String redact(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    StringBuilder sqlMasked = new StringBuilder(text.length());
    int[] copied = {0};
    SqlOptions.scan(
        text,
        (key, value) -> {
          if (isSecret(unquote(text.substring(key.start(), key.end())))) {
            sqlMasked.append(text, copied[0], value.start()).append(MASK);
            copied[0] = value.end();
          }
        });
    sqlMasked.append(text, copied[0], text.length());
    return redactEntries(sqlMasked.toString());
  }

  /**
   * Masks {@code key=value} entries, as a map's text prints them: a key is a run of letters,
   * digits, {@code _ . -} right before {@code =}; its value runs to the next {@code , } or line.
   */
  private static String redactEntries(String text) {
    StringBuilder out = new StringBuilder(text.length());
    int runStart = -1;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (isKeyChar(c)) {
        if (runStart < 0) {
          runStart = i;
        }
        out.append(c);
        i++;
        continue;
      }
      if (c == '=' && runStart >= 0) {
        int valueEnd = i + 1;
        while (valueEnd < text.length() && ",}\n".indexOf(text.charAt(valueEnd)) < 0) {
          valueEnd++;
        }
        out.append('=');
        if (isSecret(text.substring(runStart, i))) {
          out.append(MASK);
        } else {
          out.append(text, i + 1, valueEnd);
        }
        i = valueEnd;
        runStart = -1;
        continue;
      }
      runStart = -1;
      out.append(c);
      i++;
    }
    return out.toString();
  }

  private static boolean isKeyChar(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '-';
  }

  private static String unquote(String written) {
    return written.replace("''", "'");
  }

  /** Where a string literal's content lies in a text: {@code [start, end)}. */
  record Span(int start, int end) {}

  /**
   * The {@code 'key' = 'value'} pairs of a text, found in one pass: each character is read a
   * bounded number of times. A value cut off by the end of the text runs to its end.
   */
  static final class SqlOptions {

    private SqlOptions() {}

    static void scan(String text, BiConsumer<Span, Span> pair) {
      int i = text.indexOf('\'');
      while (i >= 0 && i < text.length()) {
        int keyEnd = literalEnd(text, i + 1);
        if (keyEnd >= text.length()) {
          return; // an unterminated literal: no key
        }
        int j = skipSpace(text, keyEnd + 1);
        if (j < text.length() && text.charAt(j) == '=') {
          int v = skipSpace(text, j + 1);
          if (v < text.length() && text.charAt(v) == '\'') {
            int valueEnd = literalEnd(text, v + 1);
            pair.accept(
                new Span(i + 1, keyEnd), new Span(v + 1, Math.min(valueEnd, text.length())));
            i = valueEnd >= text.length() ? -1 : text.indexOf('\'', valueEnd + 1);
            continue;
          }
        }
        // Not an option: its closing quote may open the next literal ('x'password' = 'p' must
        // still find 'password'). Each step moves past one literal, so the scan stays linear.
        i = keyEnd;
      }
    }

    /** The index of the quote that closes a literal whose content starts at {@code from}. */
    private static int literalEnd(String text, int from) {
      int i = from;
      while (i < text.length()) {
        if (text.charAt(i) == '\'') {
          if (i + 1 < text.length() && text.charAt(i + 1) == '\'') {
            i += 2;
            continue;
          }
          return i;
        }
        i++;
      }
      return text.length();
    }

    private static int skipSpace(String text, int from) {
      int i = from;
      while (i < text.length() && Character.isWhitespace(text.charAt(i))) {
        i++;
      }
      return i;
    }
  }

  /** Longest overlaps of two strings' ends, by the KMP failure function: linear in both. */
  static final class Overlaps {

    private Overlaps() {}

    /** The longest k such that {@code text} ends with the first k characters of {@code value}. */
    static int suffixPrefix(String text, String value) {
      if (value.isEmpty() || text.isEmpty()) {
        return 0;
      }
      int[] failure = failure(value);
      int k = 0;
      for (int i = Math.max(0, text.length() - value.length()); i < text.length(); i++) {
        char c = text.charAt(i);
        while (k > 0 && (k == value.length() || value.charAt(k) != c)) {
          k = failure[k - 1];
        }
        if (value.charAt(k) == c) {
          k++;
        }
      }
      return k;
    }

    /** The longest k such that {@code text} begins with the last k characters of {@code value}. */
    static int prefixSuffix(String text, String value) {
      return suffixPrefix(
          new StringBuilder(text.substring(0, Math.min(text.length(), value.length())))
              .reverse()
              .toString(),
          new StringBuilder(value).reverse().toString());
    }

    private static int[] failure(String p) {
      int[] f = new int[p.length()];
      int k = 0;
      for (int i = 1; i < p.length(); i++) {
        while (k > 0 && p.charAt(i) != p.charAt(k)) {
          k = f[k - 1];
        }
        if (p.charAt(i) == p.charAt(k)) {
          k++;
        }
        f[i] = k;
      }
      return f;
    }
  }
}
