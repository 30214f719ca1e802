package dev.wds.sdk;

import dev.wds.sdk.models.ChainStatusList;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The chains' indexing state, asynchronously. */
public final class AsyncStatus {
  private final Transport transport;

  AsyncStatus(Transport transport) {
    this.transport = transport;
  }

  /** Every chain's state. */
  public CompletableFuture<ChainStatusList> chains() {
    return transport.requestAsync(Transport.Spec.get("/v1/status/chains", Map.of()), ChainStatusList.class);
  }
}
