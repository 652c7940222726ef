package dev.tributary.system;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import tools.jackson.databind.json.JsonMapper;

/** RFC 9457 problem documents with a stable {@code code}, in handlers and in servlet filters. */
public final class Problems {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  /** The request attribute that holds the problem a request was answered with. */
  public static final String ATTRIBUTE = Problems.class.getName() + ".answer";

  private Problems() {}

  public static ProblemDetail of(ErrorCode code, String detail) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(code.status()), detail);
    problem.setType(URI.create(code.type()));
    problem.setTitle(code.title());
    problem.setProperty("code", code.name());
    return problem;
  }

  /** Writes a problem as the whole answer, for code that runs before Spring MVC. */
  public static void write(
      HttpServletRequest request, HttpServletResponse response, ProblemDetail problem)
      throws IOException {
    request.setAttribute(ATTRIBUTE, problem);
    response.setStatus(problem.getStatus());
    response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    response.setCharacterEncoding("UTF-8");
    response.getWriter().write(json(problem));
  }

  /** The problem as the JSON document Spring MVC writes for it. */
  public static String json(ProblemDetail problem) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("type", problem.getType().toString());
    body.put("title", problem.getTitle());
    body.put("status", problem.getStatus());
    body.put("detail", problem.getDetail());
    if (problem.getInstance() != null) {
      body.put("instance", problem.getInstance().toString());
    }
    if (problem.getProperties() != null) {
      body.putAll(problem.getProperties());
    }
    return MAPPER.writeValueAsString(body);
  }
}
