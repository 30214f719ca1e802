package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** One chain's indexing state. Fields the SDK does not know yet are kept in {@code extra}. */
public record ChainStatus(
    String chain,
    Long chainId,
    String name,
    String family,
    String coverage,
    String status,
    Long latestBlock,
    Long indexedBlock,
    Long indexedFrom,
    Long lagBlocks,
    Long lagSeconds,
    String lastBlockTime,
    String lastError,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public ChainStatus {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
