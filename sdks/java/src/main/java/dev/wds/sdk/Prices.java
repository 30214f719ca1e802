package dev.wds.sdk;

import dev.wds.sdk.models.Price;
import dev.wds.sdk.models.PricedAssetList;
import java.time.LocalDate;

/** Daily crypto prices. */
public final class Prices {
  private final AsyncPrices async;

  Prices(AsyncPrices async) {
    this.async = async;
  }

  /** A daily close in USD: {@code client.prices().get("BTC", LocalDate.parse("2024-01-31")).price()}. */
  public Price get(String symbol, LocalDate date) {
    return get(symbol, date, null);
  }

  /** A daily close in {@code currency}. */
  public Price get(String symbol, LocalDate date, String currency) {
    return Transport.await(async.get(symbol, date, currency));
  }

  /** The assets with prices, and each one's sources and dates. */
  public PricedAssetList list() {
    return Transport.await(async.list());
  }
}
