package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/** The portal account. Fields the SDK does not know yet are kept in {@code extra}. */
public record Account(
    String id,
    String email,
    String tier,
    String createdAt,
    String verifiedAt,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public Account {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
