package dev.tributary.system;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tributary.Api;
import dev.tributary.TributaryIT;
import dev.tributary.local.LocalStack;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.jdbc.core.JdbcTemplate;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Requests generated from the service's own OpenAPI document, over every operation, with hostile
 * path values, parameters, headers and bodies, sent as raw HTTP (so that malformed paths reach the
 * server as written). Each answer must be below 500, and each error a problem document with a
 * stable code that names no Java class or framework. The seed is printed and can be set with {@code
 * -Dfuzz.seed}; {@code -Dfuzz.requests} sets the count (10,000).
 */
@TributaryIT
class ApiFuzzIT {

  private static final JsonMapper JSON = JsonMapper.shared();
  private static final Set<String> CODES =
      Arrays.stream(ErrorCode.values()).map(Enum::name).collect(Collectors.toSet());
  private static final List<String> INTERNAL =
      List.of(
          "dev.tributary",
          "java.",
          "javax.",
          "jakarta.",
          "org.springframework",
          "tools.jackson",
          "org.apache",
          "org.hibernate",
          "Exception",
          "springframework");

  private static final List<String> NAMES =
      List.of(
          "examples",
          "marketplace",
          "orders",
          "nosuch",
          "",
          " ",
          ".",
          "..",
          "~",
          "%2F",
          "%2e%2e",
          "a%00b",
          "%zz",
          "%",
          "x".repeat(300),
          "ä",
          "名前",
          "😀",
          "a b",
          "'",
          "`",
          "\"",
          ";",
          "--",
          "/*",
          "${jndi:x}",
          "<script>",
          "null",
          "-1",
          "0",
          "99999999999999999999",
          "1e309",
          "NaN",
          "a.b",
          "A",
          "_",
          "-",
          UUID.randomUUID().toString());
  private static final List<String> NUMBERS =
      List.of(
          "0",
          "1",
          "-1",
          "500",
          "501",
          "2147483647",
          "2147483648",
          "-2147483649",
          "99999999999999999999",
          "1.5",
          "abc",
          "",
          "NaN",
          "1e3",
          "0x10",
          " 1");
  private static final List<String> CONTENT_TYPES =
      Arrays.asList(
          "application/json",
          "application/json",
          "application/json",
          "*/*",
          "text/plain",
          "multipart/form-data; boundary=x",
          "application/xml",
          "garbage",
          "application/json;" + " charset=latin1",
          "application/x-www-form-urlencoded",
          "application/*",
          null);
  private static final List<String> ACCEPTS =
      Arrays.asList(null, null, "application/json", "text/html", "application/xml", "*/*", "x");
  private static final List<String> STATEMENTS =
      List.of(
          "SHOW TABLES",
          "SHOW MATERIALIZED TABLES",
          "SELECT * FROM nosuch",
          "DROP MATERIALIZED TABLE IF EXISTS nosuch",
          "CREATE MATERIALIZED TABLE",
          "'; DROP",
          "ALTER MATERIALIZED TABLE nosuch SUSPEND",
          "CREATE TABLE t (a INT) WITH ('connector' ="
              + " 'filesystem', 'path' = 'file:///etc/passwd')",
          "DESCRIBE nosuch",
          "USE x.y;;",
          "SELECT 1; SELECT 2",
          "/* unterminated",
          "CREATE MATERIALIZED TABLE `~` AS SELECT 1",
          "CREATE MATERIALIZED TABLE a.b.c.d AS SELECT 1",
          "SHOW FLOWS IN nosuch",
          "ALTER MATERIALIZED TABLE nosuch REFRESH PARTITION (a = 'b')",
          "名前",
          "\u0000",
          "",
          // Inputs that once cost the square of their length (issue: tenancy).
          "ALTER MATERIALIZED TABLE rs_" + "a".repeat(20_000) + " SET ('k' = 'v')",
          "SHOW CREATE MATERIALIZED TABLE " + "b".repeat(20_000),
          "CREATE TABLE t (a INT) WITH ('k' = '" + "a=".repeat(10_000) + "')",
          "SHOW TABLES '" + "'".repeat(20_000),
          "SHOW MATERIALIZED TABLES LIKE '" + "%a".repeat(10_000) + "b'");

  @LocalServerPort int port;
  @Autowired JdbcTemplate jdbc;

  private record Op(String method, String path, List<JsonNode> parameters, boolean body) {}

  private record Answer(int status, String contentType, String body) {}

  @Test
  void shouldAnswerEveryGeneratedRequestWithoutA5xxAndWithProblems() throws Exception {
    long seed = Long.getLong("fuzz.seed", System.nanoTime());
    int count = Integer.getInteger("fuzz.requests", 5_000);
    System.out.println("ApiFuzzIT seed " + seed + ", " + count + " requests");
    Random random = new Random(seed);
    List<Op> operations = operations();
    String admin = LocalStack.get().adminApiKey();
    String viewer =
        new Api(port)
            .post(
                "/v1/api-keys",
                Map.of("name", "fuzz-viewer", "grants", List.of("viewer:examples.marketplace")))
            .body()
            .path("secret")
            .asString();
    List<String> tokens = Arrays.asList(admin, admin, admin, viewer, null, "trb_nope", "a.b.c");
    List<String> failures = new ArrayList<>();
    Map<Integer, Integer> statuses = new TreeMap<>();
    for (int n = 0; n < count; n++) {
      Op op = operations.get(random.nextInt(operations.size()));
      Map<String, String> headers = new LinkedHashMap<>();
      String token = pick(random, tokens);
      if (token != null) {
        headers.put("Authorization", "Bearer " + token);
      }
      String accept = pick(random, ACCEPTS);
      if (accept != null) {
        headers.put("Accept", accept);
      }
      if (random.nextInt(8) == 0) {
        headers.put(random.nextBoolean() ? "If-Match" : "If-None-Match", pick(random, NUMBERS));
      }
      String method =
          random.nextInt(40) == 0 ? pick(random, List.of("PATCH", "OPTIONS", "HEAD")) : op.method();
      byte[] body = null;
      if (op.body() || random.nextInt(20) == 0) {
        body = body(random, op).getBytes(StandardCharsets.UTF_8);
        String type = pick(random, CONTENT_TYPES);
        if (type != null) {
          headers.put("Content-Type", type);
        }
      }
      String target = target(random, op);
      Answer answer = send(method, target, headers, body);
      statuses.merge(answer.status(), 1, Integer::sum);
      String what =
          method
              + " "
              + target
              + " "
              + headers.keySet()
              + " -> "
              + answer.status()
              + " "
              + answer.body();
      if (answer.status() >= 500 || answer.status() < 100) {
        failures.add("5xx: " + what);
      } else if (answer.status() >= 400 && !method.equals("HEAD")) {
        problems(answer, what, failures);
      }
      if (failures.size() > 20) {
        break;
      }
    }
    // A generated PUT may have set a catalog's connector policy: the context is shared.
    jdbc.update("DELETE FROM connector_policy");
    System.out.println("ApiFuzzIT statuses " + statuses);
    assertThat(failures).as("seed " + seed).isEmpty();
    assertThat(statuses.keySet()).contains(200, 400, 401, 403, 404, 415);
  }

  private static void problems(Answer answer, String what, List<String> failures) {
    if (answer.contentType() == null
        || !answer.contentType().toLowerCase(Locale.ROOT).startsWith("application/problem+json")) {
      failures.add("not a problem: " + answer.contentType() + " " + what);
      return;
    }
    JsonNode problem;
    try {
      problem = JSON.readTree(answer.body());
    } catch (RuntimeException e) {
      failures.add("problem is not JSON: " + what);
      return;
    }
    if (!CODES.contains(problem.path("code").asString(""))
        || problem.path("status").asInt() != answer.status()) {
      failures.add("no stable code or status: " + what);
    }
    for (String name : INTERNAL) {
      if (answer.body().contains(name)) {
        failures.add("names '" + name + "': " + what);
      }
    }
    if (answer.body().length() > 16 * 1024) {
      failures.add("echoes " + answer.body().length() + " characters: " + what);
    }
  }

  private List<Op> operations() {
    JsonNode paths = new Api(port).get("/v3/api-docs").body().path("paths");
    List<Op> ops = new ArrayList<>();
    for (String path : paths.propertyNames()) {
      for (String method : paths.path(path).propertyNames()) {
        JsonNode op = paths.path(path).path(method);
        List<JsonNode> parameters = new ArrayList<>();
        op.path("parameters").forEach(parameters::add);
        ops.add(new Op(method.toUpperCase(Locale.ROOT), path, parameters, op.has("requestBody")));
      }
    }
    assertThat(ops).hasSizeGreaterThan(20);
    return ops;
  }

  private static String target(Random random, Op op) {
    String path = op.path();
    StringBuilder query = new StringBuilder();
    for (JsonNode p : op.parameters()) {
      String name = p.path("name").asString();
      String type = p.path("schema").path("type").asString("string");
      String value =
          type.equals("integer") || type.equals("number")
              ? (random.nextInt(3) == 0 ? pick(random, NAMES) : pick(random, NUMBERS))
              : random.nextInt(4) == 0 ? pick(random, NUMBERS) : pick(random, NAMES);
      if (p.path("in").asString().equals("path")) {
        path = path.replace("{" + name + "}", encoded(random, value));
      } else if (p.path("in").asString().equals("query") && random.nextBoolean()) {
        query
            .append(query.isEmpty() ? "?" : "&")
            .append(name)
            .append('=')
            .append(encoded(random, value));
      }
    }
    if (random.nextInt(10) == 0) {
      query
          .append(query.isEmpty() ? "?" : "&")
          .append(encoded(random, pick(random, NAMES)))
          .append('=')
          .append(encoded(random, pick(random, NAMES)));
    }
    return path + query;
  }

  /** URL-encoded, or as written (a raw value may not be valid HTTP: that is the point). */
  private static String encoded(Random random, String value) {
    if (random.nextInt(4) == 0 && value.chars().allMatch(c -> c > 32 && c < 127)) {
      return value.replace(" ", "%20").replace("/", "%2F").replace("?", "%3F").replace("#", "%23");
    }
    return URLEncoder.encode(value, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private static String body(Random random, Op op) {
    switch (random.nextInt(12)) {
      case 0:
        return pick(
            random,
            List.of(
                "",
                "{",
                "[",
                "nul",
                "{\"a\":",
                "\u0000",
                "<x/>",
                "[]",
                "\"text\"",
                "1",
                "true",
                "{}}",
                "[".repeat(2000)));
      case 1:
        return JSON.writeValueAsString(randomValue(random, 3));
      default:
        break;
    }
    Map<String, Object> template = template(random, op);
    // Mutations: a field removed, another added, a value of another kind.
    List<String> keys = new ArrayList<>(template.keySet());
    int mutation = random.nextInt(6);
    if (mutation == 0 && !keys.isEmpty()) {
      template.remove(pick(random, keys));
    } else if (mutation == 1) {
      template.put(
          pick(random, List.of("bogus", "spec2", "__proto__", "")), randomValue(random, 1));
    } else if (mutation == 2 && !keys.isEmpty()) {
      template.put(pick(random, keys), randomValue(random, 2));
    }
    return JSON.writeValueAsString(template);
  }

  private static Map<String, Object> template(Random random, Op op) {
    Map<String, Object> body = new LinkedHashMap<>();
    if (op.path().startsWith("/v1/statements")) {
      body.put("statement", pick(random, STATEMENTS));
      body.put("catalog", random.nextInt(4) == 0 ? pick(random, NAMES) : "examples");
      body.put("database", random.nextInt(4) == 0 ? pick(random, NAMES) : "marketplace");
    } else if (op.path().startsWith("/v1/api-keys")) {
      body.put("name", "fuzz-" + random.nextInt(1_000_000));
      body.put(
          "grants",
          List.of(
              pick(
                  random,
                  List.of(
                      "viewer:examples.marketplace",
                      "nope",
                      "admin:*:*",
                      "developer:a.b.c",
                      "viewer:*.x"))));
      if (random.nextBoolean()) {
        body.put("expiresAt", pick(random, List.of("2020-01-01T00:00:00Z", "tomorrow", "1")));
      }
    } else if (op.method().equals("PUT")) {
      Map<String, Object> spec = new LinkedHashMap<>();
      switch (random.nextInt(4)) {
        case 0 -> spec.put("stopped", pick(random, List.of(true, false, 1, "yes")));
        case 1 -> spec.put("statement", pick(random, STATEMENTS));
        case 2 -> spec.put("definition", Map.of("query", "SELECT 1", "bogus", 1));
        default -> {}
      }
      body.put("spec", spec);
      if (random.nextBoolean()) {
        body.put(
            "metadata",
            Map.of(
                pick(random, List.of("name", "resourceVersion", "x")),
                pick(random, List.of("other", 7, -1, "abc"))));
      }
      if (random.nextInt(3) == 0) {
        body.put("dryRun", pick(random, List.of(true, "true", 1)));
      }
    } else if (op.path().endsWith("/refreshes")) {
      body.put("partition", pick(random, List.of(Map.of(), Map.of("a", "b"), List.of(1), "x")));
    }
    return body;
  }

  private static Object randomValue(Random random, int depth) {
    int kind = random.nextInt(depth <= 0 ? 5 : 7);
    return switch (kind) {
      case 0 -> null;
      case 1 -> random.nextBoolean();
      case 2 -> pick(random, List.of(0, -1, Long.MAX_VALUE, 1.5e308, Integer.MIN_VALUE));
      case 3 -> pick(random, NAMES);
      case 4 -> "x".repeat(random.nextInt(5000));
      case 5 -> Arrays.asList(randomValue(random, depth - 1), randomValue(random, depth - 1));
      default -> {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put(pick(random, NAMES), randomValue(random, depth - 1));
        yield map;
      }
    };
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** One request over its own connection, as raw HTTP/1.1. */
  private Answer send(String method, String target, Map<String, String> headers, byte[] body)
      throws IOException {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(60_000);
      StringBuilder head = new StringBuilder();
      head.append(method).append(' ').append(target).append(" HTTP/1.1\r\n");
      head.append("Host: 127.0.0.1:").append(port).append("\r\n");
      headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
      if (body != null) {
        head.append("Content-Length: ").append(body.length).append("\r\n");
      }
      head.append("Connection: close\r\n\r\n");
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.UTF_8));
      if (body != null) {
        out.write(body);
      }
      out.flush();
      return parse(socket.getInputStream());
    }
  }

  private static Answer parse(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    in.transferTo(all);
    byte[] bytes = all.toByteArray();
    int end = indexOf(bytes, "\r\n\r\n".getBytes(StandardCharsets.US_ASCII), 0);
    if (end < 0) {
      return new Answer(0, null, new String(bytes, StandardCharsets.UTF_8));
    }
    String[] lines = new String(bytes, 0, end, StandardCharsets.ISO_8859_1).split("\r\n");
    int status = Integer.parseInt(lines[0].split(" ")[1]);
    String type = null;
    boolean chunked = false;
    for (String line : lines) {
      String lower = line.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-type:")) {
        type = line.substring(13).strip();
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    byte[] body = Arrays.copyOfRange(bytes, end + 4, bytes.length);
    return new Answer(
        status, type, new String(chunked ? unchunked(body) : body, StandardCharsets.UTF_8));
  }

  private static byte[] unchunked(byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] crlf = "\r\n".getBytes(StandardCharsets.US_ASCII);
    int i = 0;
    while (i < body.length) {
      int eol = indexOf(body, crlf, i);
      if (eol < 0) {
        break;
      }
      String size = new String(body, i, eol - i, StandardCharsets.US_ASCII).split(";")[0].strip();
      int n = Integer.parseInt(size, 16);
      if (n == 0) {
        break;
      }
      out.write(body, eol + 2, Math.min(n, body.length - eol - 2));
      i = eol + 2 + n + 2;
    }
    return out.toByteArray();
  }

  private static int indexOf(byte[] data, byte[] pattern, int from) {
    outer:
    for (int i = from; i <= data.length - pattern.length; i++) {
      for (int j = 0; j < pattern.length; j++) {
        if (data[i + j] != pattern[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
