package dev.wds.sdk;

import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/** Filters of {@code wallets().transfers}: {@code new TransferParams().chain("ethereum").limit(500)}. */
public final class TransferParams {
  final Map<String, Object> query = new LinkedHashMap<>();
  String cursor;

  public TransferParams chain(String chain) { query.put("chain", chain); return this; }
  public TransferParams fromBlock(long block) { query.put("fromBlock", block); return this; }
  public TransferParams toBlock(long block) { query.put("toBlock", block); return this; }
  public TransferParams fromDate(LocalDate date) { query.put("fromDate", date); return this; }
  public TransferParams toDate(LocalDate date) { query.put("toDate", date); return this; }
  public TransferParams asset(String asset) { query.put("asset", asset); return this; }
  /** in, out or both. */
  public TransferParams direction(String direction) { query.put("direction", direction); return this; }
  public TransferParams includeFees(boolean includeFees) { query.put("includeFees", includeFees); return this; }
  public TransferParams includePrices(boolean includePrices) { query.put("includePrices", includePrices); return this; }
  public TransferParams currency(String currency) { query.put("currency", currency); return this; }
  /** Records per page, 1..1000 (the service's default is 100). */
  public TransferParams limit(int limit) { query.put("limit", limit); return this; }
  public TransferParams cursor(String cursor) { this.cursor = cursor; return this; }
  /** Leave out what is flagged as spam (docs/spam.md; the service's default is false). */
  public TransferParams excludeSpam(boolean excludeSpam) { query.put("excludeSpam", excludeSpam); return this; }
}
