package dev.wds.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wds.sdk.errors.ChainUnavailableException;
import dev.wds.sdk.errors.InvalidAddressException;
import dev.wds.sdk.errors.InvalidCursorException;
import dev.wds.sdk.errors.NotFoundException;
import dev.wds.sdk.errors.QuotaExceededException;
import dev.wds.sdk.errors.RateLimitedException;
import dev.wds.sdk.errors.WdsException;
import dev.wds.sdk.models.ApiKey;
import dev.wds.sdk.models.BalanceList;
import dev.wds.sdk.models.ChainStatusList;
import dev.wds.sdk.models.Erc20Transfer;
import dev.wds.sdk.models.FxRate;
import dev.wds.sdk.models.SignupResult;
import dev.wds.sdk.models.Transfer;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The asynchronous client through the real service: the same answers, pages, retries and errors as the blocking one. */
class AsyncTest {
  static final WdsClient client = WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(Harness.API_KEY).build();
  static final WdsAsyncClient async = client.async();
  static final WdsAsyncClient proxied = WdsClient.builder().baseUrl(Harness.PROXY_URL).apiKey(Harness.API_KEY).buildAsync();
  static final String WALLET = Harness.WALLET;

  /** The error a future failed with, as the caller of get() sees it. */
  static Throwable failureOf(CompletableFuture<?> future) {
    ExecutionException error = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
    return error.getCause();
  }

  @Test
  void theAsyncClientIsAViewOfTheSameClient() {
    assertSame(client, async.sync());
    assertSame(async, client.async());
    assertEquals(client.settings(), async.settings());
    assertFalse(async.toString().contains(Harness.API_KEY));
    assertEquals(Harness.BASE_URL, WdsAsyncClient.fromEnv().settings().baseUrl());
  }

  @Test
  void singleCallsAnswerAsTheBlockingClientDoes() throws Exception {
    CompletableFuture<ChainStatusList> chains = async.status().chains();
    CompletableFuture<FxRate> rate = async.fx().rate("EUR", "USD", LocalDate.parse("2024-03-02"));
    CompletableFuture<BalanceList> balances = async.wallets().balances(WALLET, new BalanceParams().chain("ethereum"));
    assertEquals(client.status().chains().chains(), chains.get(30, TimeUnit.SECONDS).chains());
    assertEquals(List.of("2024-03-01", true, 1.0813), List.of(rate.get().rateDate(), rate.get().carriedForward(), rate.get().rate()));
    assertEquals(client.wallets().balances(WALLET, new BalanceParams().chain("ethereum")).balances(), balances.get().balances());
    // the response and its rate-limit state are attached as on the blocking client's results
    assertEquals(200, balances.get().response().status());
    assertNotNull(balances.get().response().requestId());
    assertEquals(1_000_000, balances.get().response().rateLimit().window("minute").orElseThrow().quota());
    assertEquals(client.fx().monthlyAverage("EUR", 2024, 2).rate(), async.fx().monthlyAverage("EUR", 2024, 2).get().rate());
    assertEquals(36, async.fx().currencies().get().currencies().size());
    assertEquals(List.of("BTC", "EUR"), async.prices().get("btc", LocalDate.parse("2024-01-31"), "EUR").thenApply(p -> List.of(p.symbol(), p.currency())).get());
    assertTrue(async.prices().list().get().assets().stream().anyMatch(a -> a.symbol().equals("ETH")));
  }

  @Test
  void asyncPaginationEqualsTheBlockingIteratorAndTheRawPages() throws Exception {
    TransferParams params = new TransferParams().chain("ethereum").limit(500);
    List<Transfer> items = async.wallets().transfers(WALLET, params).thenCompose(AsyncPage::toList).get(60, TimeUnit.SECONDS);
    List<Transfer> blocking = client.wallets().transfers(WALLET, params).stream().toList();
    assertTrue(items.size() > Harness.MIN_RECORDS);
    assertEquals(blocking, items);
    List<JsonNode> raw = Harness.rawRecords("/v1/wallets/" + WALLET + "/transfers", "chain=ethereum&limit=500");
    assertEquals(raw, JsonCompare.asSentAs(items, raw));
    assertEquals(items.size(), items.stream().map(Transfer::id).collect(Collectors.toSet()).size());
  }

  @Test
  void forEachVisitsInOrderCapsAcrossAPageBoundaryAndStopsOnAThrow() throws Exception {
    List<Transfer> first250 = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(100)).stream().limit(250).toList();
    List<Transfer> seen = new ArrayList<>();
    async.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(100))
        .thenCompose(page -> page.forEach(250, seen::add)).get(30, TimeUnit.SECONDS);
    assertEquals(first250, seen);
    List<Erc20Transfer> erc20 = async.wallets().erc20Transfers(WALLET, new TokenTransferParams().chain("ethereum").limit(1000))
        .thenCompose(AsyncPage::toList).get(60, TimeUnit.SECONDS);
    assertEquals(client.wallets().erc20Transfers(WALLET, new TokenTransferParams().chain("ethereum").limit(1000)).stream().toList(), erc20);
    List<Transfer> handled = new ArrayList<>();
    CompletableFuture<Void> stopped = async.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(10))
        .thenCompose(page -> page.forEach(t -> {
          if (handled.size() == 15) throw new IllegalStateException("enough");
          handled.add(t);
        }));
    assertEquals("enough", failureOf(stopped).getMessage());
    assertEquals(15, handled.size());
  }

  @Test
  void nextPageContinuesAndFailsOnTheLastPage() throws Exception {
    AsyncPage<Transfer> first = async.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(3)).get();
    assertEquals(List.of(true, 3), List.of(first.hasMore(), first.data().size()));
    AsyncPage<Transfer> second = first.nextPage().get();
    List<Transfer> joined = new ArrayList<>(first.data());
    joined.addAll(second.data());
    assertEquals(client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(6)).data(), joined);
    AsyncPage<dev.wds.sdk.models.NftTransfer> only = async.wallets().nftTransfers(WALLET, new TokenTransferParams().chain("ethereum")).get();
    assertFalse(only.hasMore());
    assertInstanceOf(NoSuchElementException.class, failureOf(only.nextPage()));
  }

  @Test
  void problemCodesReachTheFutureAsTheirClasses() throws Exception {
    CompletableFuture<AsyncPage<Transfer>> bad = async.wallets().transfers("0x123", new TransferParams().chain("ethereum"));
    InvalidAddressException error = assertInstanceOf(InvalidAddressException.class, failureOf(bad));
    assertEquals(List.of(400, "invalid_address"), List.of(error.status(), error.code()));
    assertNotNull(error.requestId());
    // unwrapped for exceptionally/handle too, not a CompletionException around it
    assertEquals(NotFoundException.class,
        async.prices().get("NOPE", LocalDate.parse("2024-01-01")).handle((price, failure) -> failure.getClass()).get());
    CompletionException joined = assertThrows(CompletionException.class,
        () -> async.wallets().transfers(WALLET, new TransferParams().chain("ethereum").cursor("garbage")).join());
    assertInstanceOf(InvalidCursorException.class, joined.getCause());
    // the blocking client throws the same error, with the stack trace of the thread that waited for it
    InvalidAddressException thrown = assertThrows(InvalidAddressException.class, () -> client.wallets().transfers("0x123", new TransferParams().chain("ethereum")));
    assertTrue(java.util.Arrays.stream(thrown.getStackTrace()).anyMatch(frame -> frame.getClassName().startsWith(AsyncTest.class.getName())));
    // a failed page in the middle of a walk fails the walk with its class
    Harness.queueFaults("[{\"kind\":\"pass\"},{\"kind\":\"status\",\"status\":404,\"code\":\"not_found\"}]");
    CompletableFuture<List<Transfer>> walk = proxied.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(2))
        .thenCompose(page -> page.toList(10));
    assertInstanceOf(NotFoundException.class, failureOf(walk));
    assertEquals(2, Harness.seenByProxy().size());
  }

  @Test
  void quotaExceededIsNotRetried() throws Exception {
    Harness.queueFaults("[]");
    WdsAsyncClient quota = WdsClient.builder().baseUrl(Harness.PROXY_URL).apiKey(Harness.QUOTA_KEY).buildAsync();
    QuotaExceededException error = assertInstanceOf(QuotaExceededException.class, failureOf(quota.fx().currencies()));
    assertTrue(error.retryAfterSeconds() > 0);
    assertEquals(0, error.rateLimit().window("day").orElseThrow().remaining());
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void retriesWithTheSameBackoffWithoutHoldingTheCallersThread() throws Exception {
    Harness.queueFaults("[{\"kind\":\"drop\"},{\"kind\":\"drop\"},{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    long started = System.nanoTime();
    CompletableFuture<ChainStatusList> chains = proxied.status().chains();
    assertTrue(System.nanoTime() - started < 300_000_000L, "the call returned at once");
    assertEquals(29, chains.get(30, TimeUnit.SECONDS).chains().size());
    List<Double> gaps = Harness.gapsMs(Harness.seenByProxy());
    // java.net.http resends a GET once, at once, when the connection closes under it; then 0.5 s and 1 s less jitter
    assertTrue(gaps.stream().filter(gap -> gap >= 100).count() >= 1, gaps.toString());
    assertTrue(gaps.stream().allMatch(gap -> gap < 100 || (gap >= 375 && gap < 1200)), gaps.toString());
  }

  @Test
  void rateLimitedWaitsTheRetryAfterAndAPastCeilingFailsAtOnce() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":429,\"code\":\"rate_limited\",\"headers\":{\"retry-after\":\"2\"}}]");
    assertTrue(proxied.fx().rate("EUR", "USD", LocalDate.parse("2024-01-02")).get(30, TimeUnit.SECONDS).rate() > 1);
    double gap = Harness.gapsMs(Harness.seenByProxy()).get(0);
    assertTrue(gap >= 1990 && gap < 2500, String.valueOf(gap));
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":429,\"code\":\"rate_limited\",\"headers\":{\"retry-after\":\"30\","
        + "\"x-ratelimit-limit\":\"10\",\"x-ratelimit-remaining\":\"0\",\"x-ratelimit-reset\":\"30\"}}]");
    WdsAsyncClient ceiling = proxied.sync().toBuilder().maxRetryAfter(Duration.ofSeconds(5)).buildAsync();
    RateLimitedException error = assertInstanceOf(RateLimitedException.class, failureOf(ceiling.status().chains()));
    assertEquals(List.of(30.0, 0), List.of(error.retryAfterSeconds(), error.rateLimit().remaining()));
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void givesUpAfterMaxRetriesAndNeverRetriesSignup() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":500,\"code\":\"internal\"},{\"kind\":\"status\",\"status\":502,\"code\":\"internal\"},"
        + "{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    ChainUnavailableException error = assertInstanceOf(ChainUnavailableException.class, failureOf(proxied.fx().currencies()));
    assertEquals("proxy-3", error.requestId());
    assertEquals(3, Harness.seenByProxy().size());
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":503,\"code\":\"internal\"}]");
    assertEquals(503, assertInstanceOf(WdsException.class, failureOf(proxied.developer().signup("nobody@example.com", "long enough pw"))).status());
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void cancellingAFutureStopsTheRetriesStillToCome() throws Exception {
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"},{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    CompletableFuture<ChainStatusList> chains = proxied.status().chains();
    Thread.sleep(200); // the first attempt has failed; the retry waits its 0.5 s less jitter
    assertTrue(chains.cancel(true));
    Thread.sleep(1500);
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void callsInParallelAllAnswerThosePastTheAccountsConcurrencyAfterItsRetryAfter() throws Exception {
    // the service runs 2 requests of an account at once (WDS_ACCOUNT_CONCURRENCY) and refuses the others with
    // 429 rate_limited and Retry-After: 1; 4 at once need at most 2 retries. Whether they overlap is the
    // machine's timing: every request past the first 4 is a refused one sent again, a second or more later
    Harness.queueFaults("[]");
    TransferParams params = new TransferParams().chain("ethereum").limit(1000);
    List<CompletableFuture<AsyncPage<Transfer>>> calls = IntStream.range(0, 4).mapToObj(i -> proxied.wallets().transfers(WALLET, params)).toList();
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
    assertEquals(1, new HashSet<>(calls.stream().map(call -> call.join().data()).toList()).size());
    List<Map<String, Object>> seen = Harness.seenByProxy();
    if (seen.size() > 4) assertTrue(Harness.gapsMs(seen).stream().anyMatch(gap -> gap >= 990), Harness.gapsMs(seen).toString());
  }

  @Test
  void thePortalThroughTheAsyncClient() throws Exception {
    String email = "java-async-" + System.nanoTime() + "@example.com";
    String password = "correct horse battery";
    SignupResult signup = async.developer().signup(email, password).get();
    assertEquals("code_sent", signup.status());
    ApiKey first = async.developer().verify(email, Harness.mailedCode(email), signup.signupToken()).get();
    WdsAsyncClient portal = async.withToken(async.developer().login(email, password).get().token());
    assertEquals(email, portal.developer().account().get().email());
    ApiKey second = portal.developer().keys().create("ci").get();
    assertEquals(new HashSet<>(List.of(first.id(), second.id())),
        portal.developer().keys().list().get().keys().stream().map(ApiKey::id).collect(Collectors.toSet()));
    assertNotNull(portal.developer().keys().revoke(second.id()).get().revokedAt());
    assertEquals(0, portal.developer().usage().get().total());
    assertEquals(Map.of("perMinute", 10, "perDay", 1000), portal.developer().billing().get().plan().get("limits"));
    assertEquals(401, assertInstanceOf(WdsException.class, failureOf(async.developer().account())).status());
  }
}
