package dev.tributary.port;

/** The system could not be reached or did not answer in time; worth retrying later. */
public class DependencyUnavailableException extends RemoteSystemException {

  public DependencyUnavailableException(ExternalSystem system, String message, Throwable cause) {
    super(system, message, true, cause);
  }
}
