package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class UnsupportedCurrencyException extends WdsException {
  public UnsupportedCurrencyException(Init init) {
    super(init);
  }
}
