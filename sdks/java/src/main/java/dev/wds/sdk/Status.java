package dev.wds.sdk;

import dev.wds.sdk.models.ChainStatusList;

/** The chains' indexing state. */
public final class Status {
  private final AsyncStatus async;

  Status(AsyncStatus async) {
    this.async = async;
  }

  /** Every chain's state: {@code client.status().chains().chains()}. */
  public ChainStatusList chains() {
    return Transport.await(async.chains());
  }
}
