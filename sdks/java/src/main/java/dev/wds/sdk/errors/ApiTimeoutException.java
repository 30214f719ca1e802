package dev.wds.sdk.errors;

/** No answer within the timeout. Retried. */
public class ApiTimeoutException extends ApiConnectionException {
  public ApiTimeoutException(Init init) {
    super(init);
  }
}
