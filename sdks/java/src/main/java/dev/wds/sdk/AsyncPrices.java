package dev.wds.sdk;

import dev.wds.sdk.models.Price;
import dev.wds.sdk.models.PricedAssetList;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Daily crypto prices, asynchronously. */
public final class AsyncPrices {
  private final Transport transport;

  AsyncPrices(Transport transport) {
    this.transport = transport;
  }

  /** A daily close in USD. */
  public CompletableFuture<Price> get(String symbol, LocalDate date) {
    return get(symbol, date, null);
  }

  /** A daily close in {@code currency}. */
  public CompletableFuture<Price> get(String symbol, LocalDate date, String currency) {
    Map<String, Object> query = new HashMap<>(Map.of("date", date));
    query.put("currency", currency);
    return transport.requestAsync(
        Transport.Spec.get("/v1/prices/" + URLEncoder.encode(symbol, StandardCharsets.UTF_8), query), Price.class);
  }

  /** The assets with prices, and each one's sources and dates. */
  public CompletableFuture<PricedAssetList> list() {
    return transport.requestAsync(Transport.Spec.get("/v1/prices", Map.of()), PricedAssetList.class);
  }
}
