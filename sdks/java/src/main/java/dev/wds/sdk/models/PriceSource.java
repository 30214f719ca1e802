package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** Where an asset's prices come from. Fields the SDK does not know yet are kept in {@code extra}. */
public record PriceSource(
    String source,
    String quote,
    String firstDate,
    String lastDate,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public PriceSource {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
