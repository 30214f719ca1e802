package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** A movement of value of any kind (native, internal, erc20, erc721, erc1155, fee). Fields the SDK does not know yet are kept in {@code extra}. */
public record Transfer(
    String id,
    String chain,
    Long chainId,
    String txHash,
    long blockNumber,
    String timestamp,
    String type,
    String from,
    String to,
    String value,
    String valueRaw,
    String asset,
    String contractAddress,
    String tokenId,
    Integer tokenDecimals,
    Integer logIndex,
    String direction,
    java.util.List<Map<String, Object>> counterparties,
    Spam spam,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, Priced, HasAmount {
  public Transfer {
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
