package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** The figures a price was computed from. Fields the SDK does not know yet are kept in {@code extra}. */
public record PriceDerivation(
    String priceDate,
    double usdPrice,
    String quote,
    Double fxRate,
    String fxRateDate,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public PriceDerivation {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
