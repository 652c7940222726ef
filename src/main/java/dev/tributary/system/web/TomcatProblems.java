package dev.tributary.system.web;

import dev.tributary.system.ErrorCode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.Container;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.StandardHost;
import org.apache.catalina.valves.ErrorReportValve;
import org.apache.tomcat.util.buf.EncodedSolidusHandling;
import org.springframework.boot.tomcat.TomcatConnectorCustomizer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.ProblemDetail;

/**
 * Requests Tomcat refuses before any servlet sees them (a malformed path or header) are answered as
 * problems, not with Tomcat's HTML page. An encoded slash in a path is passed on, so that the
 * security firewall refuses it with its own problem.
 */
@Configuration(proxyBeanMethods = false)
class TomcatProblems {

  @Bean
  TomcatConnectorCustomizer encodedSlashesReachTheFirewall() {
    return connector ->
        connector.setEncodedSolidusHandling(EncodedSolidusHandling.PASS_THROUGH.getValue());
  }

  @Bean
  WebServerFactoryCustomizer<TomcatServletWebServerFactory> problemErrorReports() {
    return factory ->
        factory.addContextCustomizers(
            context -> {
              Container host = context.getParent();
              if (host instanceof StandardHost standard) {
                standard.setErrorReportValveClass(ProblemValve.class.getName());
              }
            });
  }

  /** Tomcat's last resort: a problem document instead of an HTML error page. */
  public static class ProblemValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
      int status = response.getStatus();
      if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
        return;
      }
      ErrorCode code =
          switch (status) {
            case 404 -> ErrorCode.NOT_FOUND;
            // The client's protocol, not a fault of the service.
            case 505 -> ErrorCode.HTTP_VERSION_NOT_SUPPORTED;
            default -> status < 500 ? ErrorCode.BAD_REQUEST : ErrorCode.INTERNAL_ERROR;
          };
      ProblemDetail problem =
          Problems.of(
              code,
              status == 505
                  ? "The request's HTTP version is not served; send HTTP/1.1"
                  : "The request cannot be read (its path, query or headers are not valid HTTP)");
      problem.setStatus(status);
      String body = Problems.json(problem);
      try {
        response.setContentType("application/problem+json");
        response.setCharacterEncoding("UTF-8");
        response.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
        response.finishResponse();
      } catch (IOException | IllegalStateException e) {
        // the client is gone; nothing more to say
      }
    }
  }
}
