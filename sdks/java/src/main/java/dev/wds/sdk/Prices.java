package dev.wds.sdk;

import dev.wds.sdk.models.Price;
import dev.wds.sdk.models.PricedAssetList;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;

/** Daily crypto prices. */
public final class Prices {
  private final Transport transport;

  Prices(Transport transport) {
    this.transport = transport;
  }

  /** A daily close in USD: {@code client.prices().get("BTC", LocalDate.parse("2024-01-31")).price()}. */
  public Price get(String symbol, LocalDate date) {
    return get(symbol, date, null);
  }

  /** A daily close in {@code currency}. */
  public Price get(String symbol, LocalDate date, String currency) {
    Map<String, Object> query = new HashMap<>(Map.of("date", date));
    query.put("currency", currency);
    return transport.request(
        Transport.Spec.get("/v1/prices/" + URLEncoder.encode(symbol, StandardCharsets.UTF_8), query), Price.class);
  }

  /** The assets with prices, and each one's sources and dates. */
  public PricedAssetList list() {
    return transport.request(Transport.Spec.get("/v1/prices", Map.of()), PricedAssetList.class);
  }
}
