package dev.tributary.local;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Schemas of the local stack's registry by id, as a Confluent deserializer fetches them. */
public final class RegistrySchemas {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private RegistrySchemas() {}

  /**
   * The registry's answer for {@code GET /schemas/ids/{id}}: {@code schema}, {@code schemaType}.
   */
  public static JsonNode byId(int id) {
    String url = LocalStack.get().registryUrl() + "/schemas/ids/" + id;
    try {
      HttpResponse<String> answer =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(url)).build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(url + " " + answer.body()).isEqualTo(200);
      return JsonMapper.shared().readTree(answer.body());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
