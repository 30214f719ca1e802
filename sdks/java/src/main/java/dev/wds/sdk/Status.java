package dev.wds.sdk;

import dev.wds.sdk.models.ChainStatusList;
import java.util.Map;

/** The chains' indexing state. */
public final class Status {
  private final Transport transport;

  Status(Transport transport) {
    this.transport = transport;
  }

  /** Every chain's state: {@code client.status().chains().chains()}. */
  public ChainStatusList chains() {
    return transport.request(Transport.Spec.get("/v1/status/chains", Map.of()), ChainStatusList.class);
  }
}
