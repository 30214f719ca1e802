package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** The block a chain's balances are of. Fields the SDK does not know yet are kept in {@code extra}. */
public record AsOf(
    String chain,
    long blockNumber,
    String timestamp,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public AsOf {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
