package dev.wds.sdk;

import dev.wds.sdk.models.FxCurrencyList;
import dev.wds.sdk.models.FxMonthlyAverage;
import dev.wds.sdk.models.FxRate;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;

/** Fiat exchange rates. */
public final class Fx {
  private final Transport transport;

  Fx(Transport transport) {
    this.transport = transport;
  }

  /** Units of {@code to} for one {@code from}: {@code client.fx().rate("EUR", "USD", LocalDate.parse("2024-03-01")).rate()}. */
  public FxRate rate(String from, String to, LocalDate date) {
    return transport.request(Transport.Spec.get("/v1/fx/rate", Map.of("from", from, "to", to, "date", date)), FxRate.class);
  }

  /** The mean of a month's daily rates in USD: {@code client.fx().monthlyAverage("EUR", 2024, 2)}. */
  public FxMonthlyAverage monthlyAverage(String currency, int year, int month) {
    return monthlyAverage(currency, year, month, null);
  }

  public FxMonthlyAverage monthlyAverage(String currency, int year, int month, String to) {
    Map<String, Object> query = new HashMap<>(Map.of("currency", currency, "year", year, "month", month));
    query.put("to", to);
    return transport.request(Transport.Spec.get("/v1/fx/monthly-average", query), FxMonthlyAverage.class);
  }

  /** The supported fiat currencies. */
  public FxCurrencyList currencies() {
    return transport.request(Transport.Spec.get("/v1/fx/currencies", Map.of()), FxCurrencyList.class);
  }
}
