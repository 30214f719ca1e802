package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/** The mean of a month's daily rates. Fields the SDK does not know yet are kept in {@code extra}. */
public record FxMonthlyAverage(
    String currency,
    String to,
    int year,
    int month,
    double rate,
    int observations,
    String firstDate,
    String lastDate,
    boolean complete,
    String method,
    String source,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public FxMonthlyAverage {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
