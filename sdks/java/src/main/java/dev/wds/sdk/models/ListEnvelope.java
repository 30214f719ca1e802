package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;

/**
 * The body of a list answer (TransferList, Erc20TransferList, NftTransferList, TransactionList in
 * /openapi.json): the items of one page, newest first ({@code transfers}, or {@code transactions} for
 * {@code wallets().transactions}), and the {@code cursor} of the next while {@code hasMore}.
 */
public record ListEnvelope<T>(
    String address,
    String chain,
    List<String> addressReadAs,
    List<String> chains,
    List<UnavailableChain> unavailableChains,
    String currency,
    List<T> transfers,
    List<T> transactions,
    String cursor,
    boolean hasMore,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  public ListEnvelope {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  /** The page's items: {@code transactions} on a TransactionList, {@code transfers} on the others. */
  public List<T> items() {
    return transactions != null ? transactions : transfers;
  }
}
