package dev.tributary.security.web;

import dev.tributary.security.Access;
import dev.tributary.security.ApiKey;
import dev.tributary.security.ApiKeyService;
import dev.tributary.security.Grant;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** API keys, for admins of every catalog. The secret is in the answer to its creation only. */
@RestController
@RequestMapping("/v1/api-keys")
@Tag(name = "Security", description = "API keys and the audit log (admin:*)")
class ApiKeyController {

  private final ApiKeyService keys;

  ApiKeyController(ApiKeyService keys) {
    this.keys = keys;
  }

  record CreateRequest(String name, List<String> grants, Instant expiresAt) {}

  record KeyResponse(
      UUID id,
      String name,
      String prefix,
      List<String> grants,
      String createdBy,
      Instant createdAt,
      Instant expiresAt,
      Instant revokedAt,
      boolean active,
      String secret) {

    static KeyResponse of(ApiKey key, String secret) {
      return new KeyResponse(
          key.getId(),
          key.getName(),
          key.getPrefix(),
          key.grants().stream().map(Grant::toString).toList(),
          key.getCreatedBy(),
          key.getCreatedAt(),
          key.getExpiresAt(),
          key.getRevokedAt(),
          key.activeAt(Instant.now()),
          secret);
    }
  }

  @PostMapping
  @Operation(
      operationId = "createApiKey",
      summary = "Create an API key with grants such as developer:examples.marketplace",
      description =
          "The answer holds the key's secret, which is not kept and cannot be read again. Send it"
              + " as Authorization: Bearer <secret>.")
  @ApiResponse(responseCode = "201", description = "Created; the secret is in this answer only")
  ResponseEntity<KeyResponse> create(@RequestBody CreateRequest request) {
    Access.requireGlobalAdmin();
    List<Grant> grants = new ArrayList<>();
    for (String grant : request.grants() == null ? List.<String>of() : request.grants()) {
      try {
        grants.add(Grant.parse(grant));
      } catch (IllegalArgumentException e) {
        throw new ApiException(ErrorCode.VALIDATION_FAILED, e.getMessage());
      }
    }
    ApiKeyService.Created created = keys.create(request.name(), grants, request.expiresAt());
    return ResponseEntity.status(HttpStatus.CREATED)
        .body(KeyResponse.of(created.key(), created.secret()));
  }

  @GetMapping
  @Operation(
      operationId = "listApiKeys",
      summary = "List API keys, revoked and expired ones too",
      description = "Never with their secrets, which are not kept.")
  Page<KeyResponse> list(
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.requireGlobalAdmin();
    return Paging.page(
        "api-keys",
        keys.list().stream().map(k -> KeyResponse.of(k, null)).toList(),
        k -> Paging.instantKey(k.createdAt(), k.id().toString()),
        Paging.BY_NAME,
        limit,
        pageToken);
  }

  @DeleteMapping("/{id}")
  @Operation(
      operationId = "revokeApiKey",
      summary = "Revoke an API key: it stops working at once and stays listed",
      description = "Streams opened with the key end at their next read.")
  KeyResponse revoke(@PathVariable UUID id) {
    Access.requireGlobalAdmin();
    return KeyResponse.of(keys.revoke(id), null);
  }
}
