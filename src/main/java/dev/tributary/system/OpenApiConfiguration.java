package dev.tributary.system;

import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.info.License;
import io.swagger.v3.oas.models.servers.Server;
import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The API's description; the server is relative so the document does not depend on the host. */
@Configuration(proxyBeanMethods = false)
class OpenApiConfiguration {

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
                .license(new License().name("Apache-2.0")))
        .servers(List.of(new Server().url("/")));
  }
}
