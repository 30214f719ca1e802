package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class KeyLimitReachedException extends WdsException {
  public KeyLimitReachedException(Init init) {
    super(init);
  }
}
