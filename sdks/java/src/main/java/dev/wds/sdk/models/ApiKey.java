package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/** An API key; {@code key} (the full secret) only when just created, never again. Fields the SDK does not know yet are kept in {@code extra}. */
public record ApiKey(
    String id,
    String name,
    String tier,
    String hint,
    String createdAt,
    String lastUsedAt,
    String revokedAt,
    String key,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public ApiKey {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  /** Never shows the full key. */
  @Override
  public String toString() {
    return "ApiKey[id=" + id + ", name=" + name + ", tier=" + tier + ", hint=" + hint + ", revokedAt=" + revokedAt + "]";
  }
}
