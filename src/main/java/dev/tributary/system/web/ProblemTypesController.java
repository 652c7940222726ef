package dev.tributary.system.web;

import dev.tributary.system.ApiException;
import dev.tributary.system.ErrorCode;
import io.swagger.v3.oas.annotations.Hidden;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.security.SecurityRequirements;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.Arrays;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

/**
 * The pages that problem {@code type} URIs resolve to: {@code /problems/{code}} says what a code
 * means and what to do, as HTML for a browser and JSON for a client. Served without a credential:
 * the text is the same for everyone and names no resource.
 */
@RestController
@SecurityRequirements
@Tag(name = "Problems", description = "What each problem code means and what to do about it")
class ProblemTypesController {

  @Schema(description = "A problem code: the page its problem type URI resolves to")
  record ProblemType(
      @Schema(
              description = "The problem's type, as problems carry it",
              example = "/problems/not-found")
          String type,
      @Schema(description = "The stable code, as problems carry it", example = "NOT_FOUND")
          String code,
      @Schema(description = "The HTTP status problems of this code have", example = "404")
          int status,
      String title,
      @Schema(description = "What the problem means") String meaning,
      @Schema(description = "What the caller can do about it") String remedy) {

    static ProblemType of(ErrorCode code) {
      return new ProblemType(
          code.type(), code.name(), code.status(), code.title(), code.meaning(), code.remedy());
    }
  }

  @GetMapping(value = "/problems", produces = MediaType.APPLICATION_JSON_VALUE)
  @Operation(
      operationId = "listProblemTypes",
      summary = "Every problem code the API answers with",
      description = "In the order of their HTTP status.")
  List<ProblemType> list() {
    return Arrays.stream(ErrorCode.values()).map(ProblemType::of).toList();
  }

  @GetMapping(value = "/problems/{code}", produces = MediaType.APPLICATION_JSON_VALUE)
  @Operation(
      operationId = "getProblemType",
      summary = "What one problem code means and what to do",
      description =
          "A problem's type (/problems/sql-syntax-error) resolves here. A browser is answered with"
              + " the same text as an HTML page.")
  ProblemType get(@PathVariable String code) {
    return ProblemType.of(known(code));
  }

  @GetMapping(value = "/problems", produces = MediaType.TEXT_HTML_VALUE)
  @Hidden
  String listPage() {
    StringBuilder rows = new StringBuilder();
    for (ErrorCode code : ErrorCode.values()) {
      rows.append("<tr><td><a href=\"")
          .append(code.type())
          .append("\"><code>")
          .append(code.name())
          .append("</code></a></td><td>")
          .append(code.status())
          .append("</td><td>")
          .append(HtmlUtils.htmlEscape(code.title()))
          .append("</td></tr>\n");
    }
    return page(
        "Problem codes",
        "<table><tr><th>Code</th><th>Status</th><th>Title</th></tr>\n" + rows + "</table>");
  }

  @GetMapping(value = "/problems/{code}", produces = MediaType.TEXT_HTML_VALUE)
  @Hidden
  String page(@PathVariable String code) {
    ErrorCode known = known(code);
    return page(
        known.name() + " (" + known.status() + "): " + known.title(),
        "<p>"
            + HtmlUtils.htmlEscape(known.meaning())
            + "</p>\n<h2>What to do</h2>\n<p>"
            + HtmlUtils.htmlEscape(known.remedy())
            + "</p>\n<p><a href=\"/problems\">Every problem code</a></p>");
  }

  private static ErrorCode known(String slug) {
    ErrorCode code = ErrorCode.ofSlug(slug);
    if (code == null) {
      throw new ApiException(
          ErrorCode.NOT_FOUND,
          "No problem code '" + Problems.cut(slug, 60) + "'; /problems lists them");
    }
    return code;
  }

  private static String page(String title, String body) {
    return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>"
        + HtmlUtils.htmlEscape(title)
        + "</title></head>\n<body>\n<h1>"
        + HtmlUtils.htmlEscape(title)
        + "</h1>\n"
        + body
        + "\n</body></html>\n";
  }
}
