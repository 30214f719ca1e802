package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** A supported (or discontinued) fiat currency. Fields the SDK does not know yet are kept in {@code extra}. */
public record FxCurrency(
    String code,
    String name,
    String source,
    String firstDate,
    String lastDate,
    String reason,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public FxCurrency {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
