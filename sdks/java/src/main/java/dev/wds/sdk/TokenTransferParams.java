package dev.wds.sdk;

import java.time.LocalDate;
import java.util.LinkedHashMap;
import java.util.Map;

/** Filters of {@code wallets().erc20Transfers} and {@code nftTransfers}. */
public final class TokenTransferParams {
  final Map<String, Object> query = new LinkedHashMap<>();
  String cursor;

  public TokenTransferParams chain(String chain) { query.put("chain", chain); return this; }
  public TokenTransferParams contractAddress(String contractAddress) { query.put("contractAddress", contractAddress); return this; }
  public TokenTransferParams fromDate(LocalDate date) { query.put("fromDate", date); return this; }
  public TokenTransferParams toDate(LocalDate date) { query.put("toDate", date); return this; }
  public TokenTransferParams limit(int limit) { query.put("limit", limit); return this; }
  public TokenTransferParams cursor(String cursor) { this.cursor = cursor; return this; }
  /** Leave out what is flagged as spam (docs/spam.md; the service's default is false). */
  public TokenTransferParams excludeSpam(boolean excludeSpam) { query.put("excludeSpam", excludeSpam); return this; }
}
