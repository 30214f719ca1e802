package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** A balance of one asset. Fields the SDK does not know yet are kept in {@code extra}. */
public record Balance(
    String chain,
    Long chainId,
    String type,
    String asset,
    String name,
    String contractAddress,
    Integer tokenDecimals,
    String balance,
    String balanceRaw,
    Boolean priced,
    Spam spam,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, Priced, HasAmount {
  public Balance {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  @Override
  public String amount() {
    return balance;
  }

  @Override
  public String amountRaw() {
    return balanceRaw;
  }
}
