package dev.tributary.flinkformat;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The id of a JSON Schema under a subject, from a Confluent-compatible registry's REST API (the
 * base URL may carry a path, such as Apicurio's {@code /apis/ccompat/v7}): looked up, and
 * registered when the subject does not hold it yet. Transient failures are retried 3 times.
 */
final class SchemaIds {

  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String url;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  SchemaIds(String url) {
    this.url = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  int idOf(String subject, String schema) throws IOException, InterruptedException {
    ObjectNode body = MAPPER.createObjectNode().put("schemaType", "JSON").put("schema", schema);
    String path =
        "/subjects/" + URLEncoder.encode(subject, StandardCharsets.UTF_8).replace("+", "%20");
    HttpResponse<String> lookup = post(path, body);
    if (lookup.statusCode() == 404) {
      HttpResponse<String> registered = post(path + "/versions", body);
      return id(registered, "registering it under " + subject);
    }
    return id(lookup, "looking it up under " + subject);
  }

  private HttpResponse<String> post(String path, JsonNode body)
      throws IOException, InterruptedException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url + path))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/vnd.schemaregistry.v1+json")
            .POST(HttpRequest.BodyPublishers.ofString(MAPPER.writeValueAsString(body)))
            .build();
    IOException last = null;
    for (int attempt = 1; attempt <= 3; attempt++) {
      try {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() < 500) {
          return response;
        }
        last =
            new IOException(
                url + path + " answered " + response.statusCode() + ": " + response.body());
      } catch (IOException e) {
        last = e;
      }
      Thread.sleep(500L * attempt);
    }
    throw last;
  }

  private int id(HttpResponse<String> response, String what) throws IOException {
    JsonNode answer = MAPPER.readTree(response.body());
    if (response.statusCode() != 200 || !answer.path("id").canConvertToInt()) {
      throw new IOException(
          "No schema id from "
              + url
              + " "
              + what
              + ": "
              + response.statusCode()
              + " "
              + response.body());
    }
    return answer.path("id").asInt();
  }
}
