package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class ForbiddenException extends WdsException {
  public ForbiddenException(Init init) {
    super(init);
  }
}
