package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/** A portal session (24 h). Fields the SDK does not know yet are kept in {@code extra}. */
public record Session(
    String token,
    String expiresAt,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public Session {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  /** Never shows the token. */
  @Override
  public String toString() {
    return "Session[expiresAt=" + expiresAt + "]";
  }
}
