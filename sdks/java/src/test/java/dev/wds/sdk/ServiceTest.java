package dev.wds.sdk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.wds.sdk.errors.InvalidAddressException;
import dev.wds.sdk.errors.InvalidApiKeyException;
import dev.wds.sdk.errors.InvalidCursorException;
import dev.wds.sdk.errors.InvalidParameterException;
import dev.wds.sdk.errors.MissingApiKeyException;
import dev.wds.sdk.errors.NotFoundException;
import dev.wds.sdk.errors.QuotaExceededException;
import dev.wds.sdk.errors.UnknownChainException;
import dev.wds.sdk.errors.WdsException;
import dev.wds.sdk.models.ApiKey;
import dev.wds.sdk.models.BalanceList;
import dev.wds.sdk.models.ChainStatusList;
import dev.wds.sdk.models.Erc20Transfer;
import dev.wds.sdk.models.FxCurrencyList;
import dev.wds.sdk.models.FxMonthlyAverage;
import dev.wds.sdk.models.FxRate;
import dev.wds.sdk.models.ListEnvelope;
import dev.wds.sdk.models.Balance;
import dev.wds.sdk.models.ChainStatus;
import dev.wds.sdk.models.NftTransfer;
import dev.wds.sdk.models.Price;
import dev.wds.sdk.models.PricedAssetList;
import dev.wds.sdk.models.SignupResult;
import dev.wds.sdk.models.Transaction;
import dev.wds.sdk.models.TransactionNetLine;
import dev.wds.sdk.models.Transfer;
import dev.wds.sdk.models.Usage;
import java.lang.reflect.RecordComponent;
import java.math.BigInteger;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Every method once through the real service, pagination against the raw API, models against /openapi.json. */
class ServiceTest {
  static final WdsClient client = WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(Harness.API_KEY).build();
  static final String WALLET = Harness.WALLET;
  static final String TRANSFERS = "/v1/wallets/" + WALLET + "/transfers";

  @Test
  void autoPagingIterableEqualsTheRawPagesInOrderEachOnce() throws Exception {
    List<JsonNode> raw = Harness.rawRecords(TRANSFERS, "chain=ethereum&limit=500");
    List<Transfer> items = new ArrayList<>();
    for (Transfer t : client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(500)).autoPagingIterable()) items.add(t);
    assertTrue(raw.size() > Harness.MIN_RECORDS);
    assertEquals(raw, JsonCompare.asSentAs(items, raw));
    assertEquals(items.size(), items.stream().map(t -> t.txHash() + "/" + t.type() + "/" + t.logIndex()).collect(Collectors.toSet()).size());
  }

  @Test
  void streamWithALimitCapsAcrossAPageBoundary() throws Exception {
    List<Transfer> items = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(100)).stream().limit(250).toList();
    List<JsonNode> raw = Harness.rawRecords(TRANSFERS, "chain=ethereum&limit=1000").subList(0, 250);
    assertEquals(raw, JsonCompare.asSentAs(items, raw));
    List<Transfer> capped = new ArrayList<>();
    client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(100)).autoPagingIterable(250).forEach(capped::add);
    assertEquals(items, capped);
  }

  @Test
  void aPageHasCursorAndHasMoreAndTheCursorContinues() {
    Page<Transfer> first = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(3));
    assertEquals(List.of(true, 3), List.of(first.hasMore(), first.data().size()));
    assertNotNull(first.cursor());
    Page<Transfer> second = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(3).cursor(first.cursor()));
    List<Transfer> both = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(6)).data();
    List<Transfer> joined = new ArrayList<>(first.data());
    joined.addAll(second.data());
    assertEquals(both, joined);
    assertEquals(second.data(), first.nextPage().data());
  }

  @Test
  void erc20AndNftTransfers() throws Exception {
    List<Erc20Transfer> erc20 = client.wallets().erc20Transfers(WALLET, new TokenTransferParams().chain("ethereum").limit(1000)).stream().toList();
    List<JsonNode> raw = Harness.rawRecords("/v1/wallets/" + WALLET + "/erc20-transfers", "chain=ethereum&limit=1000");
    assertEquals(raw, JsonCompare.asSentAs(erc20, raw));
    assertEquals(Harness.MIN_RECORDS, erc20.stream().filter(t -> t.contractAddress().equals(Harness.TOKEN) && t.direction().equals("out")).count());
    assertEquals(BigInteger.valueOf(1_500_001), erc20.get(0).baseUnits());
    List<NftTransfer> nfts = client.wallets().nftTransfers(WALLET, new TokenTransferParams().chain("ethereum")).data();
    assertEquals(List.of(List.of(Harness.NFT, "42", "1", "in")),
        nfts.stream().map(t -> List.of(t.contractAddress(), t.tokenId(), t.amount(), t.direction())).toList());
  }

  @Test
  void transfersWithFiltersAndPricesInAnotherCurrency() {
    Page<Transfer> page = client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").direction("in").includeFees(false)
        .includePrices(true).currency("EUR").fromDate(LocalDate.now(ZoneOffset.UTC)).limit(5));
    assertEquals("EUR", page.envelope().currency());
    assertTrue(page.data().stream().allMatch(t -> t.direction().equals("in") && !t.type().equals("fee")));
    assertTrue(page.data().get(0).extra().containsKey("price_eur"));
    Double price = page.data().get(0).priceIn("EUR");
    assertTrue(price == null || price > 0);
    RateLimit.Window minute = page.response().rateLimit().window("minute").orElseThrow();
    assertEquals(List.of(1_000_000, 60), List.of(minute.quota(), minute.windowSeconds()));
    assertFalse(page.response().rateLimit().window("day").isPresent());
    assertNotNull(page.response().requestId());
  }

  @Test
  void balancesAreExactAlsoAtAnEarlierBlock() {
    BalanceList now = client.wallets().balances(WALLET, new BalanceParams().chain("ethereum"));
    BigInteger expected = BigInteger.TEN.pow(30).subtract(BigInteger.valueOf(Harness.MIN_RECORDS).multiply(BigInteger.valueOf(1_500_001)));
    Balance token = now.balances().stream().filter(b -> Harness.TOKEN.equals(b.contractAddress())).findFirst().orElseThrow();
    assertEquals(Amounts.fromBaseUnits(expected, 6), token.balance());
    assertEquals(expected, token.baseUnits());
    assertNotNull(now.response().rateLimit());
    BalanceList before = client.wallets().balances(WALLET, new BalanceParams().chain("ethereum").atBlock(1));
    assertTrue(before.balances().stream().noneMatch(b -> Harness.TOKEN.equals(b.contractAddress())));
    assertEquals(List.of(List.of("ethereum", 1L)), before.asOf().stream().map(a -> List.of(a.chain(), a.blockNumber())).toList());
  }

  @Test
  void statusFxAndPrices() {
    ChainStatusList status = client.status().chains();
    assertEquals(29, status.chains().size());
    ChainStatus ethereum = status.chains().stream().filter(c -> c.chain().equals("ethereum")).findFirst().orElseThrow();
    assertEquals(List.of(1L, "evm"), List.of(ethereum.chainId(), ethereum.family()));
    FxRate rate = client.fx().rate("EUR", "USD", LocalDate.parse("2024-03-02"));
    assertEquals(List.of("EUR", "USD", "2024-03-01", true, 1.0813), List.of(rate.from(), rate.to(), rate.rateDate(), rate.carriedForward(), rate.rate()));
    FxMonthlyAverage average = client.fx().monthlyAverage("EUR", 2024, 2);
    assertEquals(List.of(21, true, "USD"), List.of(average.observations(), average.complete(), average.to()));
    FxCurrencyList currencies = client.fx().currencies();
    assertEquals(36, currencies.currencies().size());
    Price price = client.prices().get("btc", LocalDate.parse("2024-01-31"), "EUR");
    assertEquals(List.of("2.3", "BTC", "EUR"), List.of(price.version(), price.symbol(), price.currency()));
    assertTrue(price.derivation().fxRate() > 0);
    PricedAssetList assets = client.prices().list();
    assertTrue(assets.assets().stream().anyMatch(a -> a.symbol().equals("ETH")));
  }

  @Test
  void thePortalSignupVerifyLoginAccountKeysUsageBilling() throws Exception {
    String email = "java-sdk-" + System.nanoTime() + "@example.com";
    String password = "correct horse battery";
    SignupResult signup = client.developer().signup(email, password);
    assertEquals(List.of("code_sent", email), List.of(signup.status(), signup.email()));
    assertTrue(signup.signupToken().matches("[\\w-]{43}"));
    ApiKey first = client.developer().verify(email, Harness.mailedCode(email), signup.signupToken());
    assertTrue(first.key().matches("wds_free_[0-9a-f]{32}"));
    assertFalse(first.toString().contains(first.key()));
    WdsClient portal = client.withToken(client.developer().login(email, password).token());
    assertEquals(List.of(email, "free"), List.of(portal.developer().account().email(), portal.developer().account().tier()));
    ApiKey second = portal.developer().keys().create("ci");
    assertEquals(new HashSet<>(List.of(first.id(), second.id())),
        portal.developer().keys().list().keys().stream().map(ApiKey::id).collect(Collectors.toSet()));
    assertNotNull(portal.developer().keys().revoke(second.id()).revokedAt());
    WdsException revoked = assertThrows(WdsException.class,
        () -> WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(second.key()).build().status().chains());
    assertEquals("revoked_api_key", revoked.code());
    WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(first.key()).build().fx().currencies();
    Usage usage = portal.developer().usage();
    assertEquals(1, usage.total());
    assertEquals(List.of(10L, 1L, 1000L), List.of(usage.current().minute().limit(), usage.current().day().used(), usage.current().day().limit()));
    assertTrue(usage.current().minute().resetsAt().compareTo(usage.current().at()) > 0);
    assertEquals(Map.of("perMinute", 10, "perDay", 1000), portal.developer().billing().plan().get("limits"));
    assertEquals(401, assertThrows(WdsException.class, () -> client.developer().account()).status());
  }

  @Test
  void aTruncatedAddressWithoutChainIsReadAsAMoveAddress() {
    ListEnvelope<Transfer> page = client.wallets().transfers("0x123").envelope();
    assertEquals(List.of("all", List.of("move"), List.of()), List.of(page.chain(), page.addressReadAs(), page.transfers()));
  }

  @Test
  void problemCodesMapToTheirClasses() {
    Map<Class<? extends WdsException>, Supplier<Object>> cases = Map.of(
        InvalidAddressException.class, () -> client.wallets().transfers("0x123", new TransferParams().chain("ethereum")),
        UnknownChainException.class, () -> client.wallets().transfers(WALLET, new TransferParams().chain("narnia")),
        InvalidParameterException.class, () -> client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(5000)),
        InvalidCursorException.class, () -> client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").cursor("garbage")),
        NotFoundException.class, () -> client.prices().get("NOPE", LocalDate.parse("2024-01-01")),
        InvalidApiKeyException.class,
        () -> WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey("wds_free_" + "0".repeat(32)).build().status().chains());
    cases.forEach((errorClass, call) -> {
      WdsException error = assertThrows(errorClass, call::get);
      assertNotNull(error.requestId());
      assertFalse(error.detail().isEmpty());
    });
    assertEquals("limit", assertThrows(InvalidParameterException.class,
        () -> client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(5000))).param());
  }

  @Test
  void noKeyIsMissingApiKey() {
    // WDS_API_KEY is set in this process (by the harness): a transport without a key stands for a client given none
    Transport bare = new Transport(
        new WdsClient.Settings(Harness.BASE_URL, null, null, 0, java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(5)),
        java.net.http.HttpClient.newHttpClient());
    assertThrows(MissingApiKeyException.class, () -> bare.request(Transport.Spec.get("/v1/status/chains", Map.of()), ChainStatusList.class));
  }

  @Test
  void quotaExceededIsNotRetried() throws Exception {
    Harness.queueFaults("[]");
    WdsClient quota = WdsClient.builder().baseUrl(Harness.PROXY_URL).apiKey(Harness.QUOTA_KEY).maxRetries(2).build();
    QuotaExceededException error = assertThrows(QuotaExceededException.class, () -> quota.fx().currencies());
    assertTrue(error.retryAfterSeconds() > 0);
    assertEquals(0, error.rateLimit().window("day").orElseThrow().remaining());
    assertEquals(1, Harness.seenByProxy().size());
  }

  @Test
  void theKeyGoesOnlyInTheHeaderNeverInAUrlOrAMessage() throws Exception {
    WdsClient proxied = WdsClient.builder().baseUrl(Harness.PROXY_URL).apiKey(Harness.API_KEY).build();
    Harness.queueFaults("[{\"kind\":\"status\",\"status\":503,\"code\":\"chain_unavailable\"}]");
    proxied.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(2));
    proxied.fx().rate("EUR", "USD", LocalDate.parse("2024-01-02"));
    List<Map<String, Object>> seen = Harness.seenByProxy();
    assertEquals(3, seen.size());
    assertTrue(seen.stream().allMatch(r -> Boolean.TRUE.equals(r.get("hasKeyHeader")) && !((String) r.get("url")).contains(Harness.API_KEY)));
    assertFalse(proxied.toString().contains(Harness.API_KEY));
    WdsException failed = assertThrows(WdsException.class,
        () -> proxied.toBuilder().maxRetries(0).baseUrl(Harness.PROXY_URL + "/nowhere").build().status().chains());
    assertFalse((failed.getMessage() + failed.problem()).contains(Harness.API_KEY));
  }

  @Test
  void configurationComesFromTheEnvironment() {
    WdsClient fromEnv = WdsClient.fromEnv();
    assertEquals(List.of(Harness.BASE_URL, Harness.API_KEY), List.of(fromEnv.settings().baseUrl(), fromEnv.settings().apiKey()));
    assertEquals(29, fromEnv.status().chains().chains().size());
  }

  @Test
  void everyPublishedFieldIsTyped() throws Exception {
    JsonNode schemas = Transport.MAPPER.readTree(new java.net.URL(Harness.BASE_URL + "/openapi.json")).path("components").path("schemas");
    Map<String, Class<?>> models = Map.ofEntries(
        Map.entry("Transfer", Transfer.class), Map.entry("Erc20Transfer", Erc20Transfer.class), Map.entry("NftTransfer", NftTransfer.class),
        Map.entry("TransferList", ListEnvelope.class), Map.entry("Erc20TransferList", ListEnvelope.class), Map.entry("NftTransferList", ListEnvelope.class),
        Map.entry("Balance", Balance.class), Map.entry("BalanceList", BalanceList.class), Map.entry("ChainStatus", ChainStatus.class),
        Map.entry("ChainStatusList", ChainStatusList.class), Map.entry("FxRate", FxRate.class), Map.entry("FxMonthlyAverage", FxMonthlyAverage.class),
        Map.entry("FxCurrencyList", FxCurrencyList.class), Map.entry("Price", Price.class), Map.entry("PricedAssetList", PricedAssetList.class),
        Map.entry("Transaction", Transaction.class), Map.entry("TransactionNetLine", TransactionNetLine.class),
        Map.entry("TransactionList", ListEnvelope.class));
    List<String> missing = new ArrayList<>();
    models.forEach((schema, type) -> {
      JsonNode properties = schemas.path(schema).path("properties");
      assertTrue(properties.size() > 0, schema);
      List<String> typed = java.util.Arrays.stream(type.getRecordComponents()).map(RecordComponent::getName).toList();
      properties.fieldNames().forEachRemaining(field -> {
        if (!field.matches("(price|value|total_value)_[a-z]{3}") && !typed.contains(field)) missing.add(schema + "." + field);
      });
    });
    assertEquals(List.of(), missing);
  }
}
