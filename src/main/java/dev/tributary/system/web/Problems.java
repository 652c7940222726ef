package dev.tributary.system.web;

import dev.tributary.system.ErrorCode;
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

  /** The most characters of a piece of input that a message quotes. */
  public static final int MAX_ECHO = 200;

  /** The most characters of a problem's detail (and snippet): an answer never echoes a body. */
  public static final int MAX_DETAIL = 2_000;

  private Problems() {}

  /** {@code text} cut to {@value #MAX_ECHO} characters, saying how much was left out. */
  public static String cut(String text) {
    return cut(text, MAX_ECHO);
  }

  /** {@code text} cut to {@code max} characters, saying how much was left out. */
  public static String cut(String text, int max) {
    if (text == null || text.length() <= max) {
      return text;
    }
    return text.substring(0, max) + "... (" + (text.length() - max) + " more characters)";
  }

  public static ProblemDetail of(ErrorCode code, String detail) {
    ProblemDetail problem =
        ProblemDetail.forStatusAndDetail(
            HttpStatusCode.valueOf(code.status()), cut(detail, MAX_DETAIL));
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
