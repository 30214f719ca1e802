package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class InvalidTokenException extends WdsException {
  public InvalidTokenException(Init init) {
    super(init);
  }
}
