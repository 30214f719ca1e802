package dev.wds.sdk;

import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/** Options of {@code wallets().balances}: {@code new BalanceParams().chain("ethereum").atDate(LocalDate.parse("2024-12-31"))}. */
public final class BalanceParams {
  final Map<String, Object> query = new LinkedHashMap<>();

  public BalanceParams chain(String chain) { query.put("chain", chain); return this; }
  public BalanceParams includePrices(boolean includePrices) { query.put("includePrices", includePrices); return this; }
  public BalanceParams currency(String currency) { query.put("currency", currency); return this; }
  public BalanceParams atBlock(long block) { query.put("atBlock", block); return this; }
  public BalanceParams atDate(LocalDate date) { query.put("atDate", date); return this; }
  /** Leave out what is flagged as spam (docs/spam.md; the service's default is false). */
  public BalanceParams excludeSpam(boolean excludeSpam) { query.put("excludeSpam", excludeSpam); return this; }
}
