package dev.tributary.security.web;

import dev.tributary.security.Access;
import dev.tributary.security.AuditLog;
import dev.tributary.system.Paging;
import dev.tributary.system.Paging.Page;
import dev.tributary.system.PagingDocs;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.time.Instant;
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

  @GetMapping
  @Operation(
      operationId = "listAuditEvents",
      summary = "Who did what to which resource and when, changes and refused attempts",
      description =
          "Newest first. Both the changes made and the attempts refused (with the status and code"
              + " they were refused with).")
  Page<AuditLog.Entry> list(
      @RequestParam(required = false) String principal,
      @RequestParam(required = false) String action,
      @RequestParam(required = false) String resource,
      @RequestParam(required = false) AuditLog.Outcome outcome,
      @RequestParam(required = false) Instant since,
      @RequestParam(required = false) Instant until,
      @Parameter(description = PagingDocs.LIMIT) @RequestParam(required = false) Integer limit,
      @Parameter(description = PagingDocs.TOKEN) @RequestParam(required = false) String pageToken) {
    Access.requireGlobalAdmin();
    // The filters are part of the list: a token is only good with the same ones.
    String list =
        "audit:" + principal + ":" + action + ":" + resource + ":" + outcome + ":" + since + ":"
            + until;
    int size = Paging.limit(limit);
    Long before = Paging.afterNumber(list, pageToken);
    return Paging.fetched(
        list,
        audit.page(
            new AuditLog.Query(
                principal, action, resource, outcome, since, until, before, size + 1)),
        size,
        e -> Long.toString(e.id()));
  }
}
