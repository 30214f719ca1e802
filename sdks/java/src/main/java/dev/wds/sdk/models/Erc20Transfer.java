package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** An ERC-20 transfer in the token-transfer shape. Fields the SDK does not know yet are kept in {@code extra}. */
public record Erc20Transfer(
    String id,
    String chain,
    Long chainId,
    String txHash,
    long blockNumber,
    int logIndex,
    String timestamp,
    String from,
    String to,
    String contractAddress,
    String tokenSymbol,
    Integer tokenDecimals,
    String value,
    String valueRaw,
    String direction,
    Spam spam,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasAmount {
  public Erc20Transfer {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  @Override
  public String amount() {
    return value;
  }

  @Override
  public String amountRaw() {
    return valueRaw;
  }
}
