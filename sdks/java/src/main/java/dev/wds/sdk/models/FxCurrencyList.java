package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.List;
import java.util.Map;

/** The fiat currencies. Fields the SDK does not know yet are kept in {@code extra}. */
public record FxCurrencyList(
    List<FxCurrency> currencies,
    List<FxCurrency> discontinued,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasResponse {
  public FxCurrencyList {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
