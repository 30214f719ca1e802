package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class MissingApiKeyException extends WdsException {
  public MissingApiKeyException(Init init) {
    super(init);
  }
}
