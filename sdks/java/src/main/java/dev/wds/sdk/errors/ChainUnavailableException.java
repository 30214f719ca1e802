package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class ChainUnavailableException extends WdsException {
  public ChainUnavailableException(Init init) {
    super(init);
  }
}
