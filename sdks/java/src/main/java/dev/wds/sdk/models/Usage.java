package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.List;
import java.util.Map;

/**
 * Requests per day and key, and the running minute and day from the rate limiter's own counters. Fields
 * the SDK does not know yet are kept in {@code extra}.
 */
public record Usage(
    String from,
    String to,
    long total,
    List<Map<String, Object>> days,
    CurrentUsage current,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public Usage {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
