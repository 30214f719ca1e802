package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class DateRangeTooLargeException extends WdsException {
  public DateRangeTooLargeException(Init init) {
    super(init);
  }
}
