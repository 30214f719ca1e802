package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.List;
import java.util.Map;

/** An account's keys. Fields the SDK does not know yet are kept in {@code extra}. */
public record ApiKeyList(
    List<ApiKey> keys,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public ApiKeyList {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
