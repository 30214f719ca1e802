package dev.wds.sdk;

import dev.wds.sdk.models.ApiKey;
import dev.wds.sdk.models.ApiKeyList;

/** The account's API keys (portal session needed). */
public final class Keys {
  private final AsyncKeys async;

  Keys(AsyncKeys async) {
    this.async = async;
  }

  public ApiKeyList list() {
    return Transport.await(async.list());
  }

  /** A new key; {@code key()} is shown this once. Not retried (a retry could make two keys). */
  public ApiKey create(String name) {
    return Transport.await(async.create(name));
  }

  /** Revokes a key at once and for good (harmless to repeat, so retried). */
  public ApiKey revoke(String id) {
    return Transport.await(async.revoke(id));
  }
}
