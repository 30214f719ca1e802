package dev.wds.sdk;

import dev.wds.sdk.models.FxCurrencyList;
import dev.wds.sdk.models.FxMonthlyAverage;
import dev.wds.sdk.models.FxRate;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** Fiat exchange rates, asynchronously. */
public final class AsyncFx {
  private final Transport transport;

  AsyncFx(Transport transport) {
    this.transport = transport;
  }

  /** Units of {@code to} for one {@code from} on {@code date}. */
  public CompletableFuture<FxRate> rate(String from, String to, LocalDate date) {
    return transport.requestAsync(Transport.Spec.get("/v1/fx/rate", Map.of("from", from, "to", to, "date", date)), FxRate.class);
  }

  /** The mean of a month's daily rates in USD. */
  public CompletableFuture<FxMonthlyAverage> monthlyAverage(String currency, int year, int month) {
    return monthlyAverage(currency, year, month, null);
  }

  public CompletableFuture<FxMonthlyAverage> monthlyAverage(String currency, int year, int month, String to) {
    Map<String, Object> query = new HashMap<>(Map.of("currency", currency, "year", year, "month", month));
    query.put("to", to);
    return transport.requestAsync(Transport.Spec.get("/v1/fx/monthly-average", query), FxMonthlyAverage.class);
  }

  /** The supported fiat currencies. */
  public CompletableFuture<FxCurrencyList> currencies() {
    return transport.requestAsync(Transport.Spec.get("/v1/fx/currencies", Map.of()), FxCurrencyList.class);
  }
}
