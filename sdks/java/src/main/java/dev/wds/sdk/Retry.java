package dev.wds.sdk;

import dev.wds.sdk.errors.ApiConnectionException;
import dev.wds.sdk.errors.WdsException;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.function.DoubleSupplier;

/** The retry decision and the backoff, in one place. */
public final class Retry {
  public static final double INITIAL_RETRY_DELAY_SECONDS = 0.5;
  public static final double MAX_RETRY_DELAY_SECONDS = 8;

  private Retry() {}

  /** Whether a failed attempt is worth repeating. */
  public static boolean shouldRetry(WdsException error) {
    if (error instanceof ApiConnectionException) return true; // no answer (refused, dropped, timed out)
    if (error.status() == 408) return true; // the server timed the request out
    if (error.status() == 409) return true; // a conflict that a moment later may be gone
    if ("quota_exceeded".equals(error.code())) return false; // the day's quota is spent until 00:00 UTC
    if (error.status() == 429) return true; // rate_limited: the minute window frees up
    if (error.status() == 501) return false; // not implemented: it will not be later either
    return error.status() >= 500; // server and upstream failures are usually transient
  }

  /**
   * Seconds before retry number {@code retry} (0-based), or null to give up: Retry-After when sent (for
   * {@code rate_limited} even beyond 8 s, up to {@code maxRetryAfterSeconds}), else {@code min(0.5·2^retry, 8)}
   * less up to 25 % of jitter.
   */
  public static Double retryDelaySeconds(int retry, WdsException error, double maxRetryAfterSeconds, DoubleSupplier random) {
    Double retryAfter = error.retryAfterSeconds();
    if (retryAfter != null && retryAfter >= 0) {
      double ceiling = "rate_limited".equals(error.code()) ? maxRetryAfterSeconds : MAX_RETRY_DELAY_SECONDS;
      return retryAfter <= ceiling ? retryAfter : null;
    }
    double backoff = Math.min(INITIAL_RETRY_DELAY_SECONDS * Math.pow(2, retry), MAX_RETRY_DELAY_SECONDS);
    return backoff * (1 - 0.25 * random.getAsDouble());
  }

  /** Retry-After as seconds: a number, or an HTTP date; null when absent or unreadable. */
  public static Double parseRetryAfter(String value, long nowEpochMillis) {
    if (value == null) return null;
    try {
      return Double.valueOf(value.trim());
    } catch (NumberFormatException notANumber) {
      try {
        long at = ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant().toEpochMilli();
        return Math.max(0, (at - nowEpochMillis) / 1000.0);
      } catch (RuntimeException notADate) {
        return null;
      }
    }
  }
}
