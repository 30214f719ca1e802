package dev.wds.sdk;

import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Options of {@code wallets().export}: {@code new ExportParams("koinly").chain("ethereum").fromDate(LocalDate.parse("2025-01-01"))}.
 * Formats: koinly, cointracking, cointracker, cryptotaxcalculator, taxbit, zenledger, tokentax, wds.
 */
public final class ExportParams {
  final Map<String, Object> query = new LinkedHashMap<>();

  public ExportParams(String format) { query.put("format", format); }

  /** One chain; unset: every chain the address is valid on. */
  public ExportParams chain(String chain) { query.put("chain", chain); return this; }
  public ExportParams fromBlock(long block) { query.put("fromBlock", block); return this; }
  public ExportParams toBlock(long block) { query.put("toBlock", block); return this; }
  /** A period spans at most 366 days. */
  public ExportParams fromDate(LocalDate date) { query.put("fromDate", date); return this; }
  public ExportParams toDate(LocalDate date) { query.put("toDate", date); return this; }
  /** The fiat column's currency (the service's default is USD). */
  public ExportParams currency(String currency) { query.put("currency", currency); return this; }
  /** Include the transactions flagged as spam (the service's default is false). */
  public ExportParams includeSpam(boolean includeSpam) { query.put("includeSpam", includeSpam); return this; }
}
