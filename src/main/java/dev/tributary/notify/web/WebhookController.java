package dev.tributary.notify.web;

import dev.tributary.notify.Webhooks;
import dev.tributary.security.Access;
import dev.tributary.security.Role;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

/**
 * Webhook subscriptions of a database: admins of the database create and delete them, viewers read
 * them and their delivery log. The secret is in the answer to the creation only.
 */
@RestController
@RequestMapping("/v1/catalogs/{catalog}/databases/{database}/webhooks")
@Tag(name = "Webhooks", description = "Events of a database's tables, posted to a URL, signed")
class WebhookController {

  private final Webhooks webhooks;

  WebhookController(Webhooks webhooks) {
    this.webhooks = webhooks;
  }

  record CreateWebhook(String url, List<String> events, String secret, String description) {}

  record WebhookResponse(
      UUID id,
      String catalog,
      String database,
      String url,
      List<String> events,
      String description,
      String createdBy,
      Instant createdAt,
      String secret) {

    static WebhookResponse of(Webhooks.Webhook w, String secret) {
      return new WebhookResponse(
          w.id(),
          w.catalog(),
          w.database(),
          w.url(),
          w.events(),
          w.description(),
          w.createdBy(),
          w.createdAt(),
          secret);
    }
  }

  @PostMapping
  @Operation(
      operationId = "createWebhook",
      summary = "Subscribe a URL to the events of the database's tables",
      description =
          "events: [\"*\"], [\"WARNING\"], or reasons such as [\"JobFailed\", \"RetriesExhausted\","
              + " \"RefreshRetriesExhausted\"]. The URL must be allowed by the catalog's connector"
              + " policy (its urls). Without a secret one is generated; either way the answer is"
              + " the only place it is shown. Each delivery is a POST of JSON signed with"
              + " Tributary-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of \"t.body\">.")
  @ApiResponse(
      responseCode = "201",
      description = "Subscribed; the secret is in this answer only",
      headers =
          @Header(
              name = "Location",
              description = "The subscription's URL",
              schema = @Schema(type = "string", format = "uri")))
  ResponseEntity<WebhookResponse> create(
      @PathVariable String catalog,
      @PathVariable String database,
      @RequestBody CreateWebhook request) {
    Access.require(Role.ADMIN, catalog, database);
    Webhooks.Created created =
        webhooks.create(
            catalog,
            database,
            request.url(),
            request.events(),
            request.secret(),
            request.description());
    return ResponseEntity.created(
            ServletUriComponentsBuilder.fromCurrentRequestUri()
                .path("/{id}")
                .buildAndExpand(created.webhook().id())
                .toUri())
        .body(WebhookResponse.of(created.webhook(), created.secret()));
  }

  @GetMapping
  @Operation(
      operationId = "listWebhooks",
      summary = "The database's webhook subscriptions",
      description = "Never with their secrets.")
  Page<WebhookResponse> list(
      @PathVariable String catalog,
      @PathVariable String database,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    return Paging.page(
        "webhooks:" + catalog + "." + database,
        webhooks.list(catalog, database).stream().map(w -> WebhookResponse.of(w, null)).toList(),
        w -> Paging.instantKey(w.createdAt(), w.id().toString()),
        Paging.BY_NAME,
        limit,
        pageToken);
  }

  @GetMapping("/{id}")
  @Operation(
      operationId = "getWebhook",
      summary = "One webhook subscription (not its secret)",
      description = "Never with its secret.")
  WebhookResponse get(
      @PathVariable String catalog, @PathVariable String database, @PathVariable UUID id) {
    Access.require(Role.VIEWER, catalog, database);
    return WebhookResponse.of(webhooks.get(catalog, database, id), null);
  }

  @DeleteMapping("/{id}")
  @Operation(
      operationId = "deleteWebhook",
      summary = "Delete a subscription with its delivery log; pending deliveries are not sent",
      description = "Pending deliveries of the subscription are dropped with it.")
  @ApiResponse(responseCode = "204", description = "Deleted")
  ResponseEntity<Void> delete(
      @PathVariable String catalog, @PathVariable String database, @PathVariable UUID id) {
    Access.require(Role.ADMIN, catalog, database);
    webhooks.delete(catalog, database, id);
    return ResponseEntity.noContent().build();
  }

  @GetMapping("/{id}/deliveries")
  @Operation(
      operationId = "listWebhookDeliveries",
      summary = "The delivery log: each event's state, attempts, last status and last error",
      description =
          "Newest first; a delivery is retried with backoff until it succeeds or runs out of attempts.")
  Page<Webhooks.Delivery> deliveries(
      @PathVariable String catalog,
      @PathVariable String database,
      @PathVariable UUID id,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.require(Role.VIEWER, catalog, database);
    String list = "deliveries:" + id;
    int size = Paging.limit(limit);
    Long before = Paging.afterNumber(list, pageToken);
    return Paging.fetched(
        list,
        webhooks.deliveries(catalog, database, id, before, size + 1),
        size,
        d -> Long.toString(d.id()));
  }
}
