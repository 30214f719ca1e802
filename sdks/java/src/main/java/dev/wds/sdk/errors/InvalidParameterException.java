package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class InvalidParameterException extends WdsException {
  public InvalidParameterException(Init init) {
    super(init);
  }
}
