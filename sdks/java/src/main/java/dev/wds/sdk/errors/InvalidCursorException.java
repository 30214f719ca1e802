package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class InvalidCursorException extends WdsException {
  public InvalidCursorException(Init init) {
    super(init);
  }
}
