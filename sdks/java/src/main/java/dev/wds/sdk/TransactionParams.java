package dev.wds.sdk;

import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Filters of {@code wallets().transactions}: {@code new TransactionParams().chain("ethereum").limit(100)}. Those of
 * {@link TransferParams} but {@code asset} and {@code includeFees} (an entry always carries its fee).
 */
public final class TransactionParams {
  final Map<String, Object> query = new LinkedHashMap<>();
  String cursor;

  public TransactionParams chain(String chain) { query.put("chain", chain); return this; }
  public TransactionParams fromBlock(long block) { query.put("fromBlock", block); return this; }
  public TransactionParams toBlock(long block) { query.put("toBlock", block); return this; }
  public TransactionParams fromDate(LocalDate date) { query.put("fromDate", date); return this; }
  public TransactionParams toDate(LocalDate date) { query.put("toDate", date); return this; }
  /** in (it received something), out (it sent something or paid a fee) or both. */
  public TransactionParams direction(String direction) { query.put("direction", direction); return this; }
  public TransactionParams includePrices(boolean includePrices) { query.put("includePrices", includePrices); return this; }
  public TransactionParams currency(String currency) { query.put("currency", currency); return this; }
  /** Leave out the transactions flagged as spam (the service's default is false); the cursor is bound to it. */
  public TransactionParams excludeSpam(boolean excludeSpam) { query.put("excludeSpam", excludeSpam); return this; }
  /** Transactions per page, 1..1000 (the service's default is 100); an entry holds all its records. */
  public TransactionParams limit(int limit) { query.put("limit", limit); return this; }
  public TransactionParams cursor(String cursor) { this.cursor = cursor; return this; }
}
