package dev.tributary.adapter.schemaregistry;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.RemoteSystemException;
import dev.tributary.port.SchemaRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.MediaType;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import tools.jackson.databind.JsonNode;

/**
 * {@link SchemaRegistry} over the Confluent Schema Registry REST API (also served by Apicurio's
 * ccompat API). The base URL may carry a path prefix such as {@code /apis/ccompat/v7}.
 */
public class ConfluentSchemaRegistry implements SchemaRegistry {

  static final MediaType CONTENT_TYPE =
      MediaType.parseMediaType("application/vnd.schemaregistry.v1+json");

  private final RestClient http;

  /**
   * @param http a client whose base URL is the registry's, prefix included
   */
  public ConfluentSchemaRegistry(RestClient http) {
    this.http = http;
  }

  @Override
  public int register(String subject, Schema schema) {
    JsonNode answer =
        send(
                http.post().uri("/subjects/{subject}/versions", subject).body(body(schema)),
                "register a schema under " + subject,
                false)
            .orElseThrow();
    return answer.path("id").asInt();
  }

  @Override
  public Optional<RegisteredSchema> latest(String subject) {
    return send(
            http.get().uri("/subjects/{subject}/versions/latest", subject),
            "read the latest schema of " + subject,
            true)
        .map(
            node ->
                new RegisteredSchema(
                    subject,
                    node.path("version").asInt(),
                    node.path("id").asInt(),
                    new Schema(
                        SchemaType.valueOf(node.path("schemaType").asString("AVRO")),
                        node.path("schema").asString())));
  }

  @Override
  public Optional<Schema> byId(int id) {
    return send(http.get().uri("/schemas/ids/{id}", id), "read schema " + id, true)
        .map(
            node ->
                new Schema(
                    SchemaType.valueOf(node.path("schemaType").asString("AVRO")),
                    node.path("schema").asString()));
  }

  @Override
  public boolean isCompatible(String subject, Schema schema) {
    return send(
            http.post()
                .uri("/compatibility/subjects/{subject}/versions/latest", subject)
                .body(body(schema)),
            "check compatibility with " + subject,
            true)
        .map(node -> node.path("is_compatible").asBoolean(false))
        .orElse(true);
  }

  @Override
  public void setCompatibility(String subject, Compatibility level) {
    send(
        http.put().uri("/config/{subject}", subject).body(Map.of("compatibility", level.name())),
        "set the compatibility of " + subject,
        false);
  }

  @Override
  public Optional<Compatibility> compatibility(String subject) {
    return send(
            http.get().uri("/config/{subject}", subject),
            "read the compatibility of " + subject,
            true)
        .map(node -> node.path("compatibilityLevel").asString(null))
        .filter(level -> level != null && !level.isBlank())
        .map(Compatibility::valueOf);
  }

  @Override
  public List<Integer> deleteSubject(String subject, boolean permanent) {
    // The API deletes permanently only what was soft-deleted first.
    List<Integer> versions =
        send(http.delete().uri("/subjects/{subject}", subject), "delete " + subject, true)
            .map(ConfluentSchemaRegistry::ints)
            .orElse(List.of());
    if (!permanent) {
      return versions;
    }
    List<Integer> purged =
        send(
                http.delete().uri("/subjects/{subject}?permanent=true", subject),
                "permanently delete " + subject,
                true)
            .map(ConfluentSchemaRegistry::ints)
            .orElse(List.of());
    return versions.isEmpty() ? purged : versions;
  }

  /** The registry's subjects; used as a cheap liveness probe. */
  public List<String> subjects() {
    return send(http.get().uri("/subjects"), "list subjects", false).stream()
        .flatMap(node -> node.valueStream())
        .map(JsonNode::asString)
        .toList();
  }

  private static Map<String, Object> body(Schema schema) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("schema", schema.text());
    if (schema.type() != SchemaType.AVRO) {
      body.put("schemaType", schema.type().name());
    }
    return body;
  }

  private static List<Integer> ints(JsonNode array) {
    List<Integer> values = new ArrayList<>();
    array.forEach(n -> values.add(n.asInt()));
    return values;
  }

  /**
   * Sends the request. With {@code absentIsEmpty}, a 404 that the registry marks as a missing
   * subject, version or config (error codes 404xx) is the empty answer; a 404 without such a code
   * means a wrong URL and is an error.
   */
  private Optional<JsonNode> send(
      RestClient.RequestHeadersSpec<?> request, String what, boolean absentIsEmpty) {
    try {
      return request
          .accept(CONTENT_TYPE, MediaType.APPLICATION_JSON)
          .exchange(
              (req, res) -> {
                int status = res.getStatusCode().value();
                if (res.getStatusCode().is2xxSuccessful()) {
                  return Optional.ofNullable(res.bodyTo(JsonNode.class));
                }
                RegistryError error = RegistryError.read(res, status);
                if (status == 404 && absentIsEmpty && error.isAbsence()) {
                  return Optional.empty();
                }
                throw error.toException(what);
              });
    } catch (ResourceAccessException e) {
      throw new DependencyUnavailableException(
          ExternalSystem.SCHEMA_REGISTRY,
          what + ": Schema Registry unreachable (" + e.getMostSpecificCause().getMessage() + ")",
          e);
    }
  }

  /** An error answer: HTTP status plus the Confluent {@code error_code} and message. */
  record RegistryError(int status, int errorCode, String message) {

    static RegistryError read(
        org.springframework.http.client.ClientHttpResponse response, int status) {
      String text;
      try {
        text = new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        text = "";
      }
      try {
        JsonNode node = tools.jackson.databind.json.JsonMapper.shared().readTree(text);
        return new RegistryError(
            status, node.path("error_code").asInt(0), node.path("message").asString(text));
      } catch (tools.jackson.core.JacksonException e) {
        return new RegistryError(status, 0, text.isBlank() ? "HTTP " + status : text);
      }
    }

    boolean isAbsence() {
      return errorCode >= 40400 && errorCode < 40500;
    }

    RemoteSystemException toException(String what) {
      String text = what + ": " + message;
      return switch (status) {
        case 409 -> new IncompatibleSchemaException(text);
        case 422 -> new InvalidSchemaException(text);
        default -> new RemoteSystemException(ExternalSystem.SCHEMA_REGISTRY, text, status >= 500);
      };
    }
  }
}
