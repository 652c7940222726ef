package dev.tributary.port;

/**
 * A remote system refused or failed a request. The message is the remote system's own message,
 * never a stack trace. {@link #retryable()} tells the reconciler whether trying again can help.
 */
public class RemoteSystemException extends RuntimeException {

  private final ExternalSystem system;
  private final boolean retryable;

  public RemoteSystemException(ExternalSystem system, String message, boolean retryable) {
    this(system, message, retryable, null);
  }

  public RemoteSystemException(
      ExternalSystem system, String message, boolean retryable, Throwable cause) {
    super(message, cause);
    this.system = system;
    this.retryable = retryable;
  }

  public ExternalSystem system() {
    return system;
  }

  public boolean retryable() {
    return retryable;
  }
}
