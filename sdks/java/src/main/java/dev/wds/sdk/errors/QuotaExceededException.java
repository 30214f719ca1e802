package dev.wds.sdk.errors;

/** The account's daily quota is used up until 00:00 UTC: never retried. */
public class QuotaExceededException extends WdsException {
  public QuotaExceededException(Init init) {
    super(init);
  }
}
