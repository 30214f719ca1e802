package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class InternalException extends WdsException {
  public InternalException(Init init) {
    super(init);
  }
}
