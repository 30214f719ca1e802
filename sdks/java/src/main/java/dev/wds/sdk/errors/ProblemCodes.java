package dev.wds.sdk.errors;

import java.util.Map;
import java.util.function.Function;

/** The DESIGN.md problem codes, one exception class each; an unknown code gets the base class. */
public final class ProblemCodes {
  private ProblemCodes() {}

  public static final Map<String, Function<WdsException.Init, WdsException>> CLASSES = Map.ofEntries(
      Map.entry("invalid_parameter", InvalidParameterException::new),
      Map.entry("invalid_address", InvalidAddressException::new),
      Map.entry("unknown_chain", UnknownChainException::new),
      Map.entry("date_range_too_large", DateRangeTooLargeException::new),
      Map.entry("invalid_cursor", InvalidCursorException::new),
      Map.entry("unsupported_currency", UnsupportedCurrencyException::new),
      Map.entry("api_key_in_query", ApiKeyInQueryException::new),
      Map.entry("missing_api_key", MissingApiKeyException::new),
      Map.entry("invalid_api_key", InvalidApiKeyException::new),
      Map.entry("revoked_api_key", RevokedApiKeyException::new),
      Map.entry("invalid_token", InvalidTokenException::new),
      Map.entry("forbidden", ForbiddenException::new),
      Map.entry("not_found", NotFoundException::new),
      Map.entry("key_limit_reached", KeyLimitReachedException::new),
      Map.entry("rate_limited", RateLimitedException::new),
      Map.entry("quota_exceeded", QuotaExceededException::new),
      Map.entry("chain_unavailable", ChainUnavailableException::new),
      Map.entry("upstream_error", UpstreamException::new),
      Map.entry("internal", InternalException::new));

  public static WdsException create(WdsException.Init init) {
    return CLASSES.getOrDefault(init.code(), WdsException::new).apply(init);
  }
}
