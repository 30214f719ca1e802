package dev.wds.sdk;

/**
 * The WDS client whose calls return {@link java.util.concurrent.CompletableFuture}s: the same surface,
 * settings, retries (their waits scheduled, no thread held), rate-limit info and errors as
 * {@link WdsClient}, of which it is a view ({@code client.async()}, and back with {@link #sync()}).
 * A failed call completes its future exceptionally with the error of its class ({@code WdsException}
 * and its subclasses), unwrapped.
 *
 * <pre>{@code
 * WdsAsyncClient client = WdsAsyncClient.fromEnv();
 * client.wallets().transfers("0xabc…", new TransferParams().chain("ethereum"))
 *     .thenCompose(page -> page.forEach(t -> System.out.println(t.value())))
 *     .join();
 * }</pre>
 */
public final class WdsAsyncClient {
  private final WdsClient sync;
  private final AsyncWallets wallets;
  private final AsyncStatus status;
  private final AsyncFx fx;
  private final AsyncPrices prices;
  private final AsyncDeveloper developer;

  WdsAsyncClient(Transport transport, WdsClient sync) {
    this.sync = sync;
    this.wallets = new AsyncWallets(transport);
    this.status = new AsyncStatus(transport);
    this.fx = new AsyncFx(transport);
    this.prices = new AsyncPrices(transport);
    this.developer = new AsyncDeveloper(transport);
  }

  /** An asynchronous client configured from WDS_BASE_URL and WDS_API_KEY. */
  public static WdsAsyncClient fromEnv() {
    return WdsClient.fromEnv().async();
  }

  public AsyncWallets wallets() { return wallets; }
  public AsyncStatus status() { return status; }
  public AsyncFx fx() { return fx; }
  public AsyncPrices prices() { return prices; }
  /** The developer portal: signup, verify, login, account, usage, billing, keys. */
  public AsyncDeveloper developer() { return developer; }

  /** The blocking client this is a view of. */
  public WdsClient sync() {
    return sync;
  }

  public WdsClient.Settings settings() {
    return sync.settings();
  }

  /** The same client with a portal session token. */
  public WdsAsyncClient withToken(String token) {
    return sync.withToken(token).async();
  }

  @Override
  public String toString() {
    return "WdsAsyncClient[" + settings() + "]";
  }
}
