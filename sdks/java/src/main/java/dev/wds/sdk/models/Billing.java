package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.List;
import java.util.Map;

/** The plan, its limits, the current period and invoices. Fields the SDK does not know yet are kept in {@code extra}. */
public record Billing(
    Map<String, Object> plan,
    String payment,
    Map<String, Object> currentPeriod,
    List<Map<String, Object>> invoices,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public Billing {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
