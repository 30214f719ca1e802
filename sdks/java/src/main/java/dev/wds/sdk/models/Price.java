package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/** A daily close of an asset in a currency. Fields the SDK does not know yet are kept in {@code extra}. */
public record Price(
    String version,
    String symbol,
    String date,
    String currency,
    double price,
    String source,
    double qualityScore,
    PriceDerivation derivation,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public Price {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
