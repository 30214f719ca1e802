package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class UnknownChainException extends WdsException {
  public UnknownChainException(Init init) {
    super(init);
  }
}
