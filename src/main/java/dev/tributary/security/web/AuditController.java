package dev.tributary.security.web;

import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
import java.util.List;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** The audit log, newest first, for admins of every catalog. */
@RestController
@RequestMapping("/v1/audit")
@Tag(name = "Security", description = "API keys and the audit log (admin:*)")
class AuditController {

  private final AuditLog audit;

  AuditController(AuditLog audit) {
    this.audit = audit;
  }

  record AuditPage(List<AuditLog.Entry> items, int page, int size) {}

  @GetMapping
  @Operation(
      operationId = "listAuditEvents",
      summary = "Who did what to which resource and when, changes and refused attempts",
      description =
          "Newest first. Both the changes made and the attempts refused (with the status and code they were refused with).")
  AuditPage list(
      @RequestParam(required = false) String principal,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String resource,
      @RequestParam(required = false) AuditLog.Outcome outcome,
      @RequestParam(required = false) Instant since,
      @RequestParam(required = false) Instant until,
      @RequestParam(defaultValue = "0") int page,
      @RequestParam(defaultValue = "50") int size) {
    Access.requireGlobalAdmin();
    if (page < 0 || page > 1_000_000 || size < 1 || size > 500) {
      throw new ApiException(
          ErrorCode.VALIDATION_FAILED, "page must be 0 to 1000000 and size between 1 and 500");
    }
    return new AuditPage(
        audit.page(
            new AuditLog.Query(
                principal, action, resource, outcome, since, until, page * size, size)),
        page,
        size);
  }
}
