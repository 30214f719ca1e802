package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class ApiKeyInQueryException extends WdsException {
  public ApiKeyInQueryException(Init init) {
    super(init);
  }
}
