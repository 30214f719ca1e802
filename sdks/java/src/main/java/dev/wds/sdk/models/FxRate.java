package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/** Units of {@code to} for one {@code from} on a day. Fields the SDK does not know yet are kept in {@code extra}. */
public record FxRate(
    String from,
    String to,
    String date,
    double rate,
    String rateDate,
    boolean carriedForward,
    String source,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public FxRate {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
