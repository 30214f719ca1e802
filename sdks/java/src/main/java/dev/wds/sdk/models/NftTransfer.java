package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.Map;

/** One ERC-721 or ERC-1155 token moved (batches flattened). Fields the SDK does not know yet are kept in {@code extra}. */
public record NftTransfer(
    String id,
    String chain,
    Long chainId,
    String txHash,
    long blockNumber,
    int logIndex,
    int batchIndex,
    String timestamp,
    String from,
    String to,
    String contractAddress,
    String tokenId,
    String tokenStandard,
    String amount,
    String operator,
    String collectionName,
    String collectionSymbol,
    String direction,
    Spam spam,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model, HasAmount {
  public NftTransfer {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }

  @Override
  public String amountRaw() {
    return null;
  }
}
