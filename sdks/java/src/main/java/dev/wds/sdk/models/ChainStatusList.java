package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.List;
import java.util.Map;

/** Every chain's indexing state. Fields the SDK does not know yet are kept in {@code extra}. */
public record ChainStatusList(
    String updatedAt,
    List<ChainStatus> chains,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public ChainStatusList {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
