package dev.wds.sdk;

import dev.wds.sdk.models.FxCurrencyList;
import dev.wds.sdk.models.FxMonthlyAverage;
import dev.wds.sdk.models.FxRate;
import java.time.LocalDate;

/** Fiat exchange rates. */
public final class Fx {
  private final AsyncFx async;

  Fx(AsyncFx async) {
    this.async = async;
  }

  /** Units of {@code to} for one {@code from}: {@code client.fx().rate("EUR", "USD", LocalDate.parse("2024-03-01")).rate()}. */
  public FxRate rate(String from, String to, LocalDate date) {
    return Transport.await(async.rate(from, to, date));
  }

  /** The mean of a month's daily rates in USD: {@code client.fx().monthlyAverage("EUR", 2024, 2)}. */
  public FxMonthlyAverage monthlyAverage(String currency, int year, int month) {
    return monthlyAverage(currency, year, month, null);
  }

  public FxMonthlyAverage monthlyAverage(String currency, int year, int month, String to) {
    return Transport.await(async.monthlyAverage(currency, year, month, to));
  }

  /** The supported fiat currencies. */
  public FxCurrencyList currencies() {
    return Transport.await(async.currencies());
  }
}
