package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** One asset's net change in a transaction: received − sent − fee, a signed exact decimal ({@code baseUnits()} signed too). */
public record TransactionNetLine(
    String asset,
    String contractAddress,
    String tokenId,
    Integer tokenDecimals,
    String value,
    String valueRaw,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, Priced, HasAmount {
  public TransactionNetLine {
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
