package dev.tributary.adapter.flink;

import dev.tributary.port.DependencyUnavailableException;
import dev.tributary.port.ExternalSystem;
import dev.tributary.port.RemoteSystemException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.springframework.http.client.ClientHttpResponse;
import org.springframework.web.client.ResourceAccessException;
import org.springframework.web.client.RestClient;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Sends a request to a Flink REST API (JobManager or SQL Gateway) and reads the answer as JSON.
 * Flink answers errors as {@code {"errors": [...]}}; the caller decides what they mean.
 */
final class FlinkHttp {

  private FlinkHttp() {}

  /** An answer: the HTTP status and the JSON body (a missing node when there was none). */
  record Answer(int status, JsonNode body) {
    boolean ok() {
      return status >= 200 && status < 300;
    }

    /** All entries of {@code errors}, joined; the error text Flink sent. */
    String errorText() {
      StringBuilder text = new StringBuilder();
      body.path("errors").forEach(e -> text.append(e.asString()).append('\n'));
      return text.isEmpty() ? "HTTP " + status : text.toString().strip();
    }

    /** The message of the error, without the stack trace. */
    String errorMessage() {
      return FlinkErrors.rootMessage(errorText());
    }

    RemoteSystemException failure(String what) {
      return new RemoteSystemException(
          ExternalSystem.FLINK, what + ": " + errorMessage(), status >= 500);
    }
  }

  static Answer send(RestClient.RequestHeadersSpec<?> request, String what) {
    try {
      return request.exchange((req, res) -> new Answer(res.getStatusCode().value(), readJson(res)));
    } catch (ResourceAccessException e) {
      throw new DependencyUnavailableException(
          ExternalSystem.FLINK,
          what + ": Flink unreachable (" + e.getMostSpecificCause().getMessage() + ")",
          e);
    }
  }

  /** Sends and returns the body of a successful answer, else throws. */
  static JsonNode expectOk(RestClient.RequestHeadersSpec<?> request, String what) {
    Answer answer = send(request, what);
    if (!answer.ok()) {
      throw answer.failure(what);
    }
    return answer.body();
  }

  static Optional<String> text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    return value.isMissingNode() || value.isNull()
        ? Optional.empty()
        : Optional.of(value.asString());
  }

  private static JsonNode readJson(ClientHttpResponse response) throws IOException {
    String text = new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
    if (text.isBlank()) {
      return JsonMapper.shared().missingNode();
    }
    try {
      return JsonMapper.shared().readTree(text);
    } catch (JacksonException e) {
      return JsonMapper.shared()
          .createObjectNode()
          .set("errors", JsonMapper.shared().createArrayNode().add(text));
    }
  }
}
