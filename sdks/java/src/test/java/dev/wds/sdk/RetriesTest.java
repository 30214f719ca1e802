package dev.wds.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wds.sdk.errors.ApiConnectionException;
import dev.wds.sdk.errors.ApiTimeoutException;
import dev.wds.sdk.errors.ChainUnavailableException;
import dev.wds.sdk.errors.InvalidParameterException;
import dev.wds.sdk.errors.RateLimitedException;
import dev.wds.sdk.errors.WdsException;
import dev.wds.sdk.models.Transfer;
import java.time.Duration;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Retries and backoff through the fault proxy in front of the real service. */
class RetriesTest {
  static final WdsClient client = WdsClient.builder().baseUrl(Harness.PROXY_URL).apiKey(Harness.API_KEY).build();

  static void between(double low, double high, double value) {
    assertTrue(value >= low && value < high, value + " not in [" + low + ", " + high + ")");
  }

  @Test
  void a502AndA503AreRetriedAfterHalfThenOneSecondLessJitter() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":502,\"code\":\"upstream_error\"},{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    assertEquals(29, client.status().chains().chains().size());
    List<Double> gaps = Harness.gapsMs(Harness.seenByProxy());
    assertEquals(2, gaps.size());
    between(375, 700, gaps.get(0));
    between(750, 1200, gaps.get(1));
  }

  @Test
  void droppedConnectionsAreRetried() throws Exception {
    // java.net.http itself resends a GET once, at once, when a pooled connection closes under it;
    // a second drop reaches the SDK, which waits its backoff
    Harness.queueFaults("[{\"kind\":\"drop\"},{\"kind\":\"drop\"}]");
    assertEquals(36, client.fx().currencies().currencies().size());
    List<Double> gaps = Harness.gapsMs(Harness.seenByProxy());
    assertTrue(gaps.stream().allMatch(gap -> gap < 100 || (gap >= 375 && gap < 1200)), gaps.toString());
    assertTrue(gaps.stream().anyMatch(gap -> gap >= 375), gaps.toString());
  }

  @Test
  void givesUpAfterMaxRetriesWithTheLastError() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":500,\"code\":\"internal\"},{\"kind\":\"status\",\"status\":502,\"code\":\"internal\"},"
        + "{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    ChainUnavailableException error = assertThrows(ChainUnavailableException.class, () -> client.fx().currencies());
    assertEquals("proxy-3", error.requestId());
    assertEquals(3, Harness.seenByProxy().size());
  }

  @Test
  void maxRetriesZeroMakesOneAttempt() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    assertThrows(ChainUnavailableException.class, () -> client.toBuilder().maxRetries(0).build().fx().currencies());
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void rateLimitedWaitsTheRetryAfterSent() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":429,\"code\":\"rate_limited\",\"headers\":{\"retry-after\":\"2\"}}]");
    assertTrue(client.fx().rate("EUR", "USD", LocalDate.parse("2024-01-02")).rate() > 1);
    between(1990, 2500, Harness.gapsMs(Harness.seenByProxy()).get(0));
  }

  @Test
  void aRetryAfterPastTheCeilingFailsAtOnce() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":429,\"code\":\"rate_limited\",\"headers\":{\"retry-after\":\"30\","
        + "\"x-ratelimit-limit\":\"10\",\"x-ratelimit-remaining\":\"0\",\"x-ratelimit-reset\":\"30\"}}]");
    long started = System.nanoTime();
    RateLimitedException error = assertThrows(RateLimitedException.class,
        () -> client.toBuilder().maxRetryAfter(Duration.ofSeconds(5)).build().status().chains());
    assertTrue(System.nanoTime() - started < 1_000_000_000L);
    assertEquals(List.of(30.0, 0), List.of(error.retryAfterSeconds(), error.rateLimit().remaining()));
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void other4xxAnd501AreNotRetried() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":400,\"code\":\"invalid_parameter\"}]");
    assertThrows(InvalidParameterException.class, () -> client.status().chains());
    assertEquals(1, Harness.seenByProxy().size());
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":501,\"code\":\"not_implemented\"}]");
    WdsException error = assertThrows(WdsException.class, () -> client.status().chains());
    assertEquals(List.of(WdsException.class, 501, "not_implemented"), List.of(error.getClass(), error.status(), error.code()));
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void aSlowAnswerTimesOutIsRetriedAndTheNextAttemptAnswers() throws Exception {
    WdsClient quick = client.toBuilder().timeout(Duration.ofMillis(300)).build();
    Harness.queueFaults("[{\"kind\":\"slow\",\"delayMs\":1000}]");
    assertEquals(36, quick.fx().currencies().currencies().size());
    assertEquals(2, Harness.seenByProxy().size());
    Harness.queueFaults("[{\"kind\":\"slow\",\"delayMs\":1000}]");
    ApiTimeoutException error = assertThrows(ApiTimeoutException.class, () -> quick.toBuilder().maxRetries(0).build().fx().currencies());
    assertInstanceOf(ApiConnectionException.class, error);
  }

  @Test
  void signupIsNotRetriedLoginIs() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":503,\"code\":\"internal\"}]");
    assertEquals(503, assertThrows(WdsException.class, () -> client.developer().signup("nobody@example.com", "long enough pw")).status());
    assertEquals(1, Harness.seenByProxy().size());
    Harness.queueFaults("[{\"kind\":\"drop\"}]");
    assertEquals(401, assertThrows(WdsException.class, () -> client.developer().login("nobody@example.com", "long enough pw")).status());
    assertEquals(List.of("POST", "POST"), Harness.seenByProxy().stream().map(r -> r.get("method")).toList());
  }

  @Test
  void paginationRetriesAFailedPageAndGoesOn() throws Exception {
    WdsClient direct = WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(Harness.API_KEY).build();
    List<Transfer> expected = direct.wallets().transfers(Harness.WALLET, new TransferParams().chain("ethereum").limit(1000)).stream().limit(3000).toList();
    Harness.queueFaults("[{\"kind\":\"pass\"},{\"kind\":\"status\",\"status\":502,\"code\":\"upstream_error\"},{\"kind\":\"drop\"}]");
    List<Transfer> items = client.wallets().transfers(Harness.WALLET, new TransferParams().chain("ethereum").limit(1000)).stream().limit(3000).toList();
    assertEquals(expected, items);
    assertEquals(5, Harness.seenByProxy().size());
  }
}
