package dev.tributary.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The service's REST API as the command line calls it: JSON in, JSON (or problems) out. */
final class CliClient {

  static final JsonMapper JSON = JsonMapper.builder().build();

  private final HttpClient http;
  private final String url;
  private final String apiKey;

  CliClient(String url, String apiKey) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    this.apiKey = apiKey;
    this.http =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
  }

  /** A response: its status and JSON body (a problem document when the status is 4xx or 5xx). */
  record Answer(int status, JsonNode body, String text) {
    boolean ok() {
      return status >= 200 && status < 300;
    }

    /** The problem's detail, with its code, for a message. */
    String problem() {
      if (body == null || body.isMissingNode()) {
        return "HTTP " + status + (text.isBlank() ? "" : ": " + text.strip());
      }
      String code = body.path("code").asString("");
      String detail = body.path("detail").asString(body.path("title").asString("HTTP " + status));
      return (code.isEmpty() ? "" : code + ": ") + detail;
    }
  }

  Answer get(String path) {
    return send(request(path).GET().build());
  }

  /**
   * Every item of a list, page after page (following nextPageToken), as one answer whose body is
   * {@code {"items": [...]}}; the first answer that is not 2xx is returned as it is.
   */
  Answer getAll(String path) {
    ArrayNode items = JSON.createArrayNode();
    String token = null;
    do {
      String sep = path.contains("?") ? "&" : "?";
      Answer page =
          get(path + sep + "limit=1000" + (token == null ? "" : "&pageToken=" + encode(token)));
      if (!page.ok()) {
        return page;
      }
      page.body().path("items").forEach(items::add);
      token = page.body().path("nextPageToken").asString(null);
    } while (token != null);
    ObjectNode all = JSON.createObjectNode();
    all.set("items", items);
    return new Answer(200, all, all.toString());
  }

  Answer getText(String path, String accept) {
    return send(request(path).header("Accept", accept).GET().build());
  }

  Answer post(String path, Object body) {
    return send(
        request(path)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
            .build());
  }

  Answer delete(String path) {
    return send(request(path).DELETE().build());
  }

  /**
   * Reads a Server-Sent Events stream, handing each event's data to {@code onData}, until the
   * server ends it or the thread is interrupted.
   */
  void stream(String path, Consumer<JsonNode> onData) {
    HttpRequest request = request(path).header("Accept", "text/event-stream").GET().build();
    try {
      HttpResponse<InputStream> response =
          http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      if (response.statusCode() != 200) {
        String text = new String(response.body().readAllBytes(), StandardCharsets.UTF_8);
        throw new CliException(answer(response.statusCode(), text).problem());
      }
      try (BufferedReader in =
          new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
        StringBuilder data = new StringBuilder();
        String event = "message";
        for (String line = in.readLine(); line != null; line = in.readLine()) {
          if (line.isEmpty()) {
            if (!data.isEmpty()) {
              JsonNode node = JSON.readTree(data.toString());
              if (event.equals("error")) {
                // The service ended the stream: the credential was revoked or expired.
                throw new CliException(
                    answer(node.path("status").asInt(500), data.toString()).problem());
              }
              onData.accept(node);
              data.setLength(0);
            }
            event = "message";
          } else if (line.startsWith("event:")) {
            event = line.substring(6).strip();
          } else if (line.startsWith("data:")) {
            data.append(line.substring(5).stripLeading());
          }
        }
      }
    } catch (IOException e) {
      throw new CliException("Cannot reach " + url + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofMinutes(5));
    if (apiKey != null && !apiKey.isBlank()) {
      b.header("Authorization", "Bearer " + apiKey);
    }
    return b.header("Accept", "application/json, application/problem+json");
  }

  private Answer send(HttpRequest request) {
    try {
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      return answer(response.statusCode(), response.body());
    } catch (IOException e) {
      throw new CliException("Cannot reach " + url + ": " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CliException("Interrupted");
    }
  }

  private static Answer answer(int status, String text) {
    JsonNode body = null;
    if (text != null && !text.isBlank()) {
      try {
        body = JSON.readTree(text);
      } catch (RuntimeException e) {
        body = null; // not JSON: Mermaid, DOT or an error page
      }
    }
    return new Answer(status, body, text == null ? "" : text);
  }

  /** A failure the command reports in one line and exits 1 for. */
  static final class CliException extends RuntimeException {
    CliException(String message) {
      super(message);
    }
  }
}
