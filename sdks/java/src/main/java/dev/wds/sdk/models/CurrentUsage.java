package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/**
 * The running UTC minute and day from the rate limiter's own counters, read at {@code at} (the server's
 * clock). Fields the SDK does not know yet are kept in {@code extra}.
 */
public record CurrentUsage(
    String at, UsageWindow minute, UsageWindow day, @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public CurrentUsage {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
