package dev.tributary.security;

import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;

/**
 * What the current request attempts, named where it is known (a statement's kind and object), so
 * that a refusal is logged against that and not only against the URL.
 */
public final class AuditContext {

  static final String CALLER = AuditContext.class.getName() + ".caller";
  static final String ACTION = AuditContext.class.getName() + ".action";
  static final String RESOURCE = AuditContext.class.getName() + ".resource";

  private AuditContext() {}

  /**
   * The request is about to {@code action} (e.g. CREATE MATERIALIZED TABLE) on {@code resource}.
   */
  public static void attempt(String action, String resource) {
    set(ACTION, action);
    set(RESOURCE, resource);
  }

  static void caller(Caller caller) {
    set(CALLER, caller);
  }

  private static void set(String name, Object value) {
    RequestAttributes attributes = RequestContextHolder.getRequestAttributes();
    if (attributes != null) {
      attributes.setAttribute(name, value, RequestAttributes.SCOPE_REQUEST);
    }
  }
}
