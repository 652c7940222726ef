package dev.tributary.system;

import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.web.client.RestClient;

/** RestClient builders for the remote APIs Tributary calls, with connect and read timeouts. */
public final class HttpClients {

  private HttpClients() {}

  public static RestClient.Builder restClient(URI baseUrl, Duration timeout) {
    // HTTP/1.1: the JDK client's default h2c upgrade of plain-http requests stalls POSTs on
    // some servers (Apicurio's Vert.x among them), and none of these APIs gains from HTTP/2.
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(timeout)
            .build();
    JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(client);
    factory.setReadTimeout(timeout);
    return RestClient.builder().requestFactory(factory).baseUrl(baseUrl.toString());
  }
}
