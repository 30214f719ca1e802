package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/**
 * A rate-limit window as the limiter counts it right now; {@code limit} null: unlimited (the day, on some
 * plans). Fields the SDK does not know yet are kept in {@code extra}.
 */
public record UsageWindow(
    long used, Long limit, String resetsAt, @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public UsageWindow {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
