package dev.tributary.system;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.headers.Header;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.servers.Server;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springdoc.core.utils.SpringDocUtils;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.servlet.mvc.method.annotation.SseEmitter;
import tools.jackson.databind.JsonNode;

/**
 * The API's description; the server is relative so the document does not depend on the host. Every
 * operation lists the errors it can answer, each an RFC 9457 problem, and the bearer schemes that
 * authenticate it.
 */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

  static final String API_KEY = "apiKey";
  static final String JWT = "oauth2Jwt";

  static {
    // No framework type in the document: a JSON node is any JSON value, and an event stream
    // sends table events (its media type is text/event-stream).
    SpringDocUtils.getConfig()
        .replaceWithSchema(
            JsonNode.class, new Schema<>().description("Any JSON value, as the topic holds it"))
        .replaceWithSchema(
            SseEmitter.class, new Schema<>().$ref("#/components/schemas/TableEvent"));
  }

  @Bean
  OpenAPI tributaryOpenApi() {
    return new OpenAPI()
        .info(
            new Info()
                .title("Tributary")
                .version("v1")
                .description(
                    "Control plane for materialized tables on Apache Flink: definitions, their"
                        + " versions and lifecycle, backed by Kafka topics and Schema Registry"
                        + " subjects.")
                .license(new License().name("Apache-2.0").identifier("Apache-2.0")))
        .servers(List.of(new Server().url("/")))
        .components(
            new Components()
                .addSecuritySchemes(
                    API_KEY,
                    new SecurityScheme()
                        .type(SecurityScheme.Type.HTTP)
                        .scheme("bearer")
                        .bearerFormat("trb_...")
                        .description(
                            "An API key (POST /v1/api-keys), sent as Authorization: Bearer"
                                + " <key>"))
                .addSecuritySchemes(
                    JWT,
                    new SecurityScheme()
                        .type(SecurityScheme.Type.HTTP)
                        .scheme("bearer")
                        .bearerFormat("JWT")
                        .description(
                            "An OAuth2 access token from the configured issuer; grants come from"
                                + " its tributary_grants claim or tributary:<role> scopes"))
                .addSchemas("Problem", problemSchema()))
        .security(
            List.of(
                new SecurityRequirement().addList(API_KEY),
                new SecurityRequirement().addList(JWT)));
  }

  private static Schema<?> problemSchema() {
    Map<String, Schema> properties = new LinkedHashMap<>();
    properties.put(
        "type",
        new StringSchema()
            .format("uri-reference")
            .description(
                "/problems/{code}: GET it (no credential needed) for what the code means and what"
                    + " to do"));
    properties.put("title", new StringSchema());
    properties.put("status", new IntegerSchema());
    properties.put("detail", new StringSchema());
    properties.put("instance", new StringSchema());
    properties.put(
        "code",
        new StringSchema()
            .description("Stable error code")
            ._enum(Arrays.stream(ErrorCode.values()).map(Enum::name).toList()));
    return new ObjectSchema()
        .description("An RFC 9457 problem; some carry more members (line, column, permission)")
        .properties(properties)
        .required(List.of("type", "title", "status", "code"));
  }

  /** The errors each operation can answer with, by what it does. */
  @Bean
  OpenApiCustomizer problemResponses() {
    return openApi -> {
      // Springdoc rebuilds the schemas from the code: the Problem schema is added again here, or
      // every $ref to it would dangle.
      openApi.getComponents().addSchemas("Problem", problemSchema());
      openApi.getComponents().getSchemas().remove("SseEmitter");
      openApi.getComponents().getSchemas().remove("JsonNode");
      openApi
          .getPaths()
          .forEach(
              (path, item) ->
                  item.readOperationsMap()
                      .forEach((method, operation) -> addProblems(path, method, operation)));
    };
  }

  private static void addProblems(String path, PathItem.HttpMethod method, Operation operation) {
    ApiResponses responses = operation.getResponses();
    // Answers are JSON unless the operation says otherwise (Spring MVC writes them with the
    // JSON converter); springdoc would type them */*.
    responses.forEach(
        (status, response) -> {
          Content content = response.getContent();
          if (content != null && content.containsKey("*/*")) {
            MediaType json = content.remove("*/*");
            content.putIfAbsent("application/json", json);
          }
        });
    boolean writes = method != PathItem.HttpMethod.GET;
    boolean body = operation.getRequestBody() != null;
    problem(responses, "400", "The request is not valid (parameters, body or SQL)");
    problem(responses, "401", "No valid API key or token");
    problem(responses, "403", "The caller lacks the role this needs (the problem names it)");
    if (path.contains("{") || path.startsWith("/v1/statements")) {
      problem(responses, "404", "The catalog, database or resource does not exist");
    }
    problem(responses, "406", "The Accept header excludes JSON");
    if (writes) {
      problem(responses, "409", "Conflicts with the stored state or a concurrent change");
    }
    if (Set.of(PathItem.HttpMethod.PUT, PathItem.HttpMethod.DELETE).contains(method)
        && path.contains("materialized-tables")) {
      problem(responses, "412", "If-Match or If-None-Match does not hold");
    }
    if (body) {
      problem(responses, "415", "The body is not application/json");
    }
    if (path.startsWith("/v1/statements")) {
      problem(responses, "429", "Too many scripts run at once; retry later");
    }
    boolean waits =
        operation.getParameters() != null
            && operation.getParameters().stream().anyMatch(p -> "waitSeconds".equals(p.getName()));
    if (waits) {
      problem(
          responses,
          "429",
          "Too many requests wait (waitSeconds) on this replica; retry later, or without waiting");
    }
    problem(responses, "500", "An unexpected error (a bug); see the service log");
    if (!path.startsWith("/v1/api-keys") && !path.startsWith("/v1/audit")) {
      problem(responses, "502", "Flink, Kafka or the registry refused a request");
    }
    problem(responses, "503", "A dependency is unavailable; retry later");
  }

  private static void problem(ApiResponses responses, String status, String description) {
    if (responses.containsKey(status)) {
      return;
    }
    ApiResponse response = new ApiResponse().description(description);
    if (status.equals("429") || status.equals("503")) {
      response.addHeaderObject(
          "Retry-After",
          new Header()
              .description(
                  "Seconds to wait before trying again: a script slot's mean hold, or 1 s for a"
                      + " request with waitSeconds (429), the time until the dependencies are checked"
                      + " again (503)")
              .schema(new IntegerSchema().minimum(java.math.BigDecimal.ONE)));
    }
    responses.addApiResponse(
        status,
        response.content(
            new Content()
                .addMediaType(
                    "application/problem+json",
                    new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem")))));
  }
}
