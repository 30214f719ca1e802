package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class InvalidApiKeyException extends WdsException {
  public InvalidApiKeyException(Init init) {
    super(init);
  }
}
