package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** A chain that could not be read in all-chains mode, with why. Fields the SDK does not know yet are kept in {@code extra}. */
public record UnavailableChain(
    String chain,
    String code,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public UnavailableChain {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
