package dev.wds.sdk;

import dev.wds.sdk.Transport.Auth;
import dev.wds.sdk.Transport.Spec;
import dev.wds.sdk.models.ApiKey;
import dev.wds.sdk.models.ApiKeyList;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/** The account's API keys (portal session needed), asynchronously. */
public final class AsyncKeys {
  private final Transport transport;

  AsyncKeys(Transport transport) {
    this.transport = transport;
  }

  public CompletableFuture<ApiKeyList> list() {
    return transport.requestAsync(new Spec("GET", "/v1/developer/keys", null, null, Auth.TOKEN, true), ApiKeyList.class);
  }

  /** A new key; {@code key()} is shown this once. Not retried (a retry could make two keys). */
  public CompletableFuture<ApiKey> create(String name) {
    Map<String, Object> body = name == null ? Map.of() : Map.of("name", name);
    return transport.requestAsync(new Spec("POST", "/v1/developer/keys", null, body, Auth.TOKEN, false), ApiKey.class);
  }

  /** Revokes a key at once and for good (harmless to repeat, so retried). */
  public CompletableFuture<ApiKey> revoke(String id) {
    return transport.requestAsync(
        new Spec("DELETE", "/v1/developer/keys/" + URLEncoder.encode(id, StandardCharsets.UTF_8), null, null, Auth.TOKEN, true), ApiKey.class);
  }
}
