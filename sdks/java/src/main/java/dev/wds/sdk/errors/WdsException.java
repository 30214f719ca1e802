package dev.wds.sdk.errors;

import dev.wds.sdk.RateLimit;
import java.util.Map;

/**
 * Every error the client throws. {@code status} is the HTTP status (0 when no answer came), {@code code}
 * the API's stable problem code (docs/errors.md), {@code requestId} the service's X-Request-Id to quote.
 */
public class WdsException extends RuntimeException {
  private final int status;
  private final String code;
  private final String detail;
  private final String param;
  private final String requestId;
  private final RateLimit rateLimit;
  private final Double retryAfterSeconds;
  private final Map<String, Object> problem;

  public WdsException(Init init) {
    super(
        (init.status() == 0 ? "no answer" : String.valueOf(init.status())) + " " + init.code() + ": " + init.detail()
            + (init.requestId() == null ? "" : " (request id " + init.requestId() + ")"),
        init.cause());
    this.status = init.status();
    this.code = init.code();
    this.detail = init.detail();
    this.param = init.param();
    this.requestId = init.requestId();
    this.rateLimit = init.rateLimit();
    this.retryAfterSeconds = init.retryAfterSeconds();
    this.problem = init.problem();
  }

  /** Everything an error is made of. */
  public record Init(
      int status,
      String code,
      String detail,
      String param,
      String requestId,
      RateLimit rateLimit,
      Double retryAfterSeconds,
      Map<String, Object> problem,
      Throwable cause) {}

  public int status() { return status; }
  public String code() { return code; }
  public String detail() { return detail; }
  /** The request parameter that was wrong, when the service named one. */
  public String param() { return param; }
  public String requestId() { return requestId; }
  public RateLimit rateLimit() { return rateLimit; }
  /** Seconds the service asked to wait (Retry-After), or null. */
  public Double retryAfterSeconds() { return retryAfterSeconds; }
  /** The problem+json body as sent, or null. */
  public Map<String, Object> problem() { return problem; }
}
