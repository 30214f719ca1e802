package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.Map;

/**
 * A sign-up: the code was mailed; {@code signupToken} goes to {@code verify} with that code (it is never
 * mailed). Fields the SDK does not know yet are kept in {@code extra}.
 */
public record SignupResult(
    String status,
    String email,
    String signupToken,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public SignupResult {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
