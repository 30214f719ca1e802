package dev.wds.sdk.errors;

/** No answer: the connection failed or was dropped. Retried. */
public class ApiConnectionException extends WdsException {
  public ApiConnectionException(Init init) {
    super(init);
  }
}
