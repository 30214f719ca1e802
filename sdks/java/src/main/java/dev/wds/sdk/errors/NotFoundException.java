package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class NotFoundException extends WdsException {
  public NotFoundException(Init init) {
    super(init);
  }
}
