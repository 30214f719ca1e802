package dev.wds.sdk.errors;

/** Over the minute's limit: retried after Retry-After (up to maxRetryAfter). */
public class RateLimitedException extends WdsException {
  public RateLimitedException(Init init) {
    super(init);
  }
}
