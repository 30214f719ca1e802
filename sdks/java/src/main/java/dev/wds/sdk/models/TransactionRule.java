package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** The rule that named a transaction: a stable {@code id} such as {@code swap.fungible-for-fungible}, and why in one line. */
public record TransactionRule(String id, String explanation, @JsonAnySetter @JsonAnyGetter Map<String, Object> extra) implements Model {
  public TransactionRule {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
