package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One transaction of a wallet: its category and the rule that named it, whether the wallet initiated
 * it, its status ({@code success} or {@code failed}), its {@code spam} verdict (flagged when every movement
 * is spam or one is address poisoning; reasons: the union of its movements'), the wallet's {@code fee} record (or null), its
 * other records ({@code movements}, as {@code transfers} gives them) and the net change per asset.
 */
public record Transaction(
    String id,
    String chain,
    Long chainId,
    String txHash,
    long blockNumber,
    String timestamp,
    TransactionCategory category,
    TransactionRule rule,
    boolean initiatedByWallet,
    String status,
    Spam spam,
    Transfer fee,
    List<Transfer> movements,
    List<TransactionNetLine> net,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public Transaction {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  /** The movements and the fee record: every record of the wallet in this transaction. */
  public List<Transfer> records() {
    List<Transfer> records = new ArrayList<>(movements);
    if (fee != null) records.add(fee);
    return records;
  }
}
