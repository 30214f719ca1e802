package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class RevokedApiKeyException extends WdsException {
  public RevokedApiKeyException(Init init) {
    super(init);
  }
}
