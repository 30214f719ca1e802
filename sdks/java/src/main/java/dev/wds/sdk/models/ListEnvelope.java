package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;

/**
 * The body of a list answer (TransferList, Erc20TransferList, NftTransferList in /openapi.json): the
 * records of one page, newest first, and the {@code cursor} of the next while {@code hasMore}.
 */
public record ListEnvelope<T>(
    String address,
    String chain,
    List<String> addressReadAs,
    List<String> chains,
    List<UnavailableChain> unavailableChains,
    String currency,
    List<T> transfers,
    String cursor,
    boolean hasMore,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public ListEnvelope {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
