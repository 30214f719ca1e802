package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;

/** An asset with prices. Fields the SDK does not know yet are kept in {@code extra}. */
public record PricedAsset(
    String symbol,
    List<PriceSource> sources,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public PricedAsset {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
