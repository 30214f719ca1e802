package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class InvalidAddressException extends WdsException {
  public InvalidAddressException(Init init) {
    super(init);
  }
}
