package dev.tributary.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Makes fuzz inputs from valid statements: truncations, swaps, insertions, odd text. */
public final class Mutations {

  private static final String[] NOISE = {
    "'",
    "\"",
    "`",
    "(",
    ")",
    ";",
    "--",
    "/*",
    "*/",
    ",",
    "=",
    "<",
    ">",
    "..",
    "AS",
    "SELECT",
    "WITH",
    "INTERVAL",
    "NOT NULL",
    "\u0000",
    "\uD83D\uDE00",
    "\u00e9\u00e8",
    "\t\n",
    "''",
    "``",
    "-1",
    "99999999999999999999"
  };

  private Mutations() {}

  public static List<String> generate(List<String> seeds, int count, Random random) {
    List<String> out = new ArrayList<>(count);
    while (out.size() < count) {
      String seed = seeds.get(random.nextInt(seeds.size()));
      out.add(mutate(seed, seeds, random));
    }
    // A few fixed extremes.
    out.set(0, "CREATE MATERIALIZED TABLE " + "x".repeat(100_000) + " AS SELECT 1");
    out.set(1, "SELECT " + "(".repeat(50_000));
    out.set(2, "'" + "a".repeat(1_000_000));
    out.set(3, "CREATE MATERIALIZED TABLE t AS SELECT 1; ".repeat(30_000));
    out.set(4, "");
    out.set(5, "\uFEFF\u202E CREATE \u00a0 MATERIALIZED TABLE t AS SELECT 1");
    return out;
  }

  static String mutate(String s, List<String> seeds, Random random) {
    int ops = 1 + random.nextInt(3);
    for (int i = 0; i < ops && !s.isEmpty(); i++) {
      int at = random.nextInt(s.length() + 1);
      switch (random.nextInt(7)) {
        case 0 -> s = s.substring(0, at);
        case 1 -> s = s.substring(0, at) + NOISE[random.nextInt(NOISE.length)] + s.substring(at);
        case 2 -> {
          int end = Math.min(s.length(), at + 1 + random.nextInt(12));
          s = s.substring(0, at) + s.substring(end);
        }
        case 3 -> s = swapWords(s, random);
        case 4 -> s = s.substring(0, at) + "a".repeat(1 + random.nextInt(300)) + s.substring(at);
        case 5 -> s = s.substring(0, at) + (char) (random.nextInt(0x3000)) + s.substring(at);
        default -> {
          String other = seeds.get(random.nextInt(seeds.size()));
          s = s.substring(0, at) + other.substring(random.nextInt(other.length()));
        }
      }
    }
    return s;
  }

  private static String swapWords(String s, Random random) {
    String[] words = s.split(" ");
    if (words.length < 2) {
      return s;
    }
    int a = random.nextInt(words.length);
    int b = random.nextInt(words.length);
    String t = words[a];
    words[a] = words[b];
    words[b] = t;
    return String.join(" ", words);
  }
}
