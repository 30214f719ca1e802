package dev.wds.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wds.sdk.errors.ApiConnectionException;
import dev.wds.sdk.errors.ChainUnavailableException;
import dev.wds.sdk.errors.ProblemCodes;
import dev.wds.sdk.errors.QuotaExceededException;
import dev.wds.sdk.errors.RateLimitedException;
import dev.wds.sdk.errors.WdsException;
import dev.wds.sdk.models.Spam;
import dev.wds.sdk.models.Transaction;
import dev.wds.sdk.models.TransactionCategory;
import dev.wds.sdk.models.Transfer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class UnitTest {
  static WdsException apiError(int status, String code, Double retryAfter) {
    return ProblemCodes.create(new WdsException.Init(status, code, "d", null, "r", null, retryAfter, null, null));
  }

  @ParameterizedTest(name = "status {0} {1} -> {2}")
  @CsvSource({
    "408, http_408, true", "409, key_limit_reached, true", "429, rate_limited, true", "429, quota_exceeded, false",
    "500, internal, true", "501, http_501, false", "502, upstream_error, true", "503, chain_unavailable, true",
    "400, invalid_parameter, false", "401, invalid_api_key, false", "404, not_found, false"
  })
  void shouldRetryDecidesByStatusAndCode(int status, String code, boolean expected) {
    assertEquals(expected, Retry.shouldRetry(apiError(status, code, null)));
  }

  @Test
  void shouldRetryAFailedConnection() {
    assertTrue(Retry.shouldRetry(new ApiConnectionException(new WdsException.Init(0, "connection_error", "x", null, null, null, null, null, null))));
  }

  @Test
  void backoffIsMinHalfTimesTwoToTheNAndEightLessJitter() {
    WdsException error = apiError(503, "chain_unavailable", null);
    assertEquals(List.of(0.5, 1.0, 2.0, 4.0, 8.0, 8.0), IntStream.range(0, 6).mapToObj(n -> Retry.retryDelaySeconds(n, error, 60, () -> 0)).toList());
    assertEquals(0.75, Retry.retryDelaySeconds(1, error, 60, () -> 1));
  }

  @Test
  void retryAfterWinsAndGoesBeyondEightSecondsOnlyForRateLimited() {
    assertEquals(30.0, Retry.retryDelaySeconds(0, apiError(429, "rate_limited", 30.0), 60, () -> 0));
    assertNull(Retry.retryDelaySeconds(0, apiError(429, "rate_limited", 61.0), 60, () -> 0));
    assertEquals(3.0, Retry.retryDelaySeconds(0, apiError(503, "chain_unavailable", 3.0), 60, () -> 0));
    assertNull(Retry.retryDelaySeconds(0, apiError(503, "chain_unavailable", 30.0), 60, () -> 0));
    assertEquals(7.0, Retry.parseRetryAfter("7", 0));
    assertEquals(10.0, Retry.parseRetryAfter("Wed, 21 Oct 2015 07:28:10 GMT", 1445412480000L));
  }

  @Test
  void oneClassPerProblemCodeAndTheBaseClassForUnknownCodes() {
    assertEquals(19, ProblemCodes.CLASSES.size());
    assertInstanceOf(RateLimitedException.class, apiError(429, "rate_limited", null));
    assertInstanceOf(QuotaExceededException.class, apiError(429, "quota_exceeded", null));
    assertInstanceOf(ChainUnavailableException.class, apiError(503, "chain_unavailable", null));
    WdsException unknown = apiError(418, "teapot", null);
    assertEquals(List.of(WdsException.class, 418, "teapot", "r"), List.of(unknown.getClass(), unknown.status(), unknown.code(), unknown.requestId()));
  }

  @Test
  void rateLimitReadsTheIetfAndXRateLimitHeaders() {
    HttpHeaders headers = HttpHeaders.of(Map.of(
        "ratelimit-policy", List.of("\"minute\";q=1000;w=60, \"day\";q=50000;w=86400"),
        "ratelimit", List.of("\"minute\";r=998;t=12, \"day\";r=49000;t=3600"),
        "x-ratelimit-limit", List.of("1000"), "x-ratelimit-remaining", List.of("998"), "x-ratelimit-reset", List.of("12")), (a, b) -> true);
    assertEquals(
        new RateLimit(1000, 998, 12, List.of(new RateLimit.Window("minute", 1000, 60, 998, 12), new RateLimit.Window("day", 50000, 86400, 49000, 3600))),
        RateLimit.parse(headers));
    assertNull(RateLimit.parse(HttpHeaders.of(Map.of(), (a, b) -> true)));
  }

  @Test
  void amountsConvertExactly() {
    assertEquals(BigInteger.valueOf(1_500_001), Amounts.toBaseUnits("1.500001", 6));
    assertEquals(new BigInteger("123456789012345678901234567890123456789012345678"), Amounts.toBaseUnits("123456789012345678901234567890.123456789012345678", 18));
    assertEquals(BigInteger.valueOf(-50), Amounts.toBaseUnits("-0.5", 2));
    assertThrows(ArithmeticException.class, () -> Amounts.toBaseUnits("0.1234567", 6));
    assertThrows(NumberFormatException.class, () -> Amounts.toBaseUnits("1e18", 18));
    assertEquals("1.500001", Amounts.fromBaseUnits(BigInteger.valueOf(1_500_001), 6));
    assertEquals("0.000000000000000005", Amounts.fromBaseUnits(BigInteger.valueOf(5), 18));
  }

  @Test
  void modelsKeepUnknownFieldsAndGiveExactAmounts() throws Exception {
    String json = "{\"chain\":\"ethereum\",\"blockNumber\":7,\"from\":\"0xa\",\"value\":\"0.000103290850738488\",\"newField\":{\"x\":1},\"price_eur\":2.5}";
    Transfer transfer = Transport.MAPPER.readValue(json, Transfer.class);
    assertEquals("0xa", transfer.from());
    assertEquals(Map.of("newField", Map.of("x", 1), "price_eur", 2.5), transfer.extra());
    assertEquals(Transport.MAPPER.readTree(json), JsonCompare.asSentAs(transfer, Transport.MAPPER.readTree(json)));
    assertEquals(new BigDecimal("0.000103290850738488"), transfer.decimal());
    assertEquals(BigInteger.valueOf(103290850738488L), transfer.baseUnits());
    assertEquals(2.5, transfer.priceIn("EUR"));
    assertNull(transfer.valueIn("eur"));
  }

  @Test
  void aCategoryAddedLaterIsUnknownAndKeepsItsString() throws Exception {
    String entry = "{\"id\":\"BV0ZaGZQ-uSsIaSz\",\"chain\":\"ethereum\",\"chainId\":1,\"txHash\":\"0xe01a\",\"blockNumber\":20,"
        + "\"timestamp\":\"2026-11-27T19:13:53.000Z\",\"category\":\"%s\",\"rule\":{\"id\":\"%s.record\",\"explanation\":\"why\"},"
        + "\"initiatedByWallet\":true,\"status\":\"success\",\"fee\":null,\"movements\":[],\"net\":[]}";
    Transaction unknown = Transport.MAPPER.readValue(entry.formatted("staking-lock", "staking-lock"), Transaction.class);
    assertEquals(List.of(TransactionCategory.Value.UNKNOWN, "staking-lock", false, "staking-lock.record"),
        List.of(unknown.category().value(), unknown.category().asString(), unknown.category().isKnown(), unknown.rule().id()));
    String json = entry.formatted("staking-lock", "staking-lock");
    assertEquals(Transport.MAPPER.readTree(json), JsonCompare.asSentAs(unknown, Transport.MAPPER.readTree(json)));
    Transaction known = Transport.MAPPER.readValue(entry.formatted("token-send", "token-send"), Transaction.class);
    assertEquals(List.of(TransactionCategory.Value.TOKEN_SEND, true), List.of(known.category().value(), known.category().isKnown()));
    assertEquals(TransactionCategory.Value.FEE_ONLY, TransactionCategory.of("fee-only").value());
  }

  @Test
  void aSpamReasonAddedLaterIsKeptAsItsString() throws Exception {
    String json = "{\"chain\":\"ethereum\",\"blockNumber\":7,\"from\":\"0xa\",\"to\":\"0xb\",\"value\":\"0\","
        + "\"spam\":{\"flagged\":true,\"reasons\":[\"address-poisoning\",\"look-alike-contract\"],\"source\":\"computed\"}}";
    Transfer transfer = Transport.MAPPER.readValue(json, Transfer.class);
    assertEquals(List.of("address-poisoning", "look-alike-contract"), transfer.spam().reasons());
    assertEquals(List.of(true, false), transfer.spam().reasons().stream().map(Spam.KNOWN_REASONS::contains).toList());
    assertEquals(Transport.MAPPER.readTree(json), JsonCompare.asSentAs(transfer, Transport.MAPPER.readTree(json)));
  }
}
