package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.wds.sdk.ResponseInfo;
import java.util.List;
import java.util.Map;

/** A wallet's balances. Fields the SDK does not know yet are kept in {@code extra}. */
public record BalanceList(
    String address,
    String chain,
    List<String> addressReadAs,
    List<String> chains,
    List<UnavailableChain> unavailableChains,
    String currency,
    List<AsOf> asOf,
    List<Balance> balances,
    Boolean priced,
    List<Map<String, Object>> addresses,
    @JsonIgnore ResponseInfo response,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, Priced, HasResponse {
  public BalanceList {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  /** {@code total_value_<ccy>}: the sum over priced balances, or null. */
  public Double totalValueIn(String currency) {
    return Priced.number(extra.get("total_value_" + currency.toLowerCase(java.util.Locale.ROOT)));
  }
}
