package dev.wds.sdk;

import java.net.http.HttpClient;
import java.time.Duration;

/**
 * The WDS client. Key and base URL from the builder or WDS_API_KEY / WDS_BASE_URL; the key is sent only
 * in the X-API-Key header.
 *
 * <pre>{@code
 * WdsClient client = WdsClient.fromEnv();
 * client.wallets().transfers("0xabc…", new TransferParams().chain("ethereum")).stream().forEach(t -> System.out.println(t.value()));
 * }</pre>
 *
 * Every call blocks until its answer (retries included); {@link #async()} is the same client with
 * CompletableFutures.
 */
public final class WdsClient {
  public static final String DEFAULT_BASE_URL = "http://127.0.0.1:8080";

  /** The resolved configuration; {@code toString()} never shows the key or token. */
  public record Settings(String baseUrl, String apiKey, String token, int maxRetries, Duration timeout, Duration maxRetryAfter) {
    @Override
    public String toString() {
      return "Settings[baseUrl=" + baseUrl + ", maxRetries=" + maxRetries + ", timeout=" + timeout + "]";
    }
  }

  private final Transport transport;
  private final WdsAsyncClient async;
  private final Wallets wallets;
  private final Status status;
  private final Fx fx;
  private final Prices prices;
  private final Developer developer;

  private WdsClient(Transport transport) {
    this.transport = transport;
    this.async = new WdsAsyncClient(transport, this);
    this.wallets = new Wallets(async.wallets());
    this.status = new Status(async.status());
    this.fx = new Fx(async.fx());
    this.prices = new Prices(async.prices());
    this.developer = new Developer(async.developer());
  }

  /** A client configured from WDS_BASE_URL and WDS_API_KEY. */
  public static WdsClient fromEnv() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * The same client with every call returning a CompletableFuture (the same settings, HTTP client,
   * retries and errors): {@code client.async().status().chains().thenAccept(…)}.
   */
  public WdsAsyncClient async() { return async; }

  public Wallets wallets() { return wallets; }
  public Status status() { return status; }
  public Fx fx() { return fx; }
  public Prices prices() { return prices; }
  /** The developer portal: signup, verify, login, account, usage, billing, keys. */
  public Developer developer() { return developer; }

  public Settings settings() {
    return transport.settings();
  }

  /** A builder holding this client's settings, to make a variant (sharing the HTTP client). */
  public Builder toBuilder() {
    Settings s = settings();
    return new Builder().baseUrl(s.baseUrl()).apiKey(s.apiKey()).token(s.token()).maxRetries(s.maxRetries())
        .timeout(s.timeout()).maxRetryAfter(s.maxRetryAfter()).httpClient(transport.http());
  }

  /** The same client with a portal session token ({@code developer().login(…).token()}). */
  public WdsClient withToken(String token) {
    return toBuilder().token(token).build();
  }

  @Override
  public String toString() {
    return "WdsClient[" + settings() + "]";
  }

  public static final class Builder {
    private String baseUrl;
    private String apiKey;
    private String token;
    private int maxRetries = 2;
    private Duration timeout = Duration.ofSeconds(60);
    private Duration maxRetryAfter = Duration.ofSeconds(60);
    private HttpClient httpClient;

    /** Defaults to WDS_BASE_URL, then http://127.0.0.1:8080. */
    public Builder baseUrl(String baseUrl) { this.baseUrl = baseUrl; return this; }
    /** Defaults to WDS_API_KEY. */
    public Builder apiKey(String apiKey) { this.apiKey = apiKey; return this; }
    public Builder token(String token) { this.token = token; return this; }
    /** Retries after the first attempt (default 2); 0 turns retrying off. */
    public Builder maxRetries(int maxRetries) { this.maxRetries = maxRetries; return this; }
    /** Per attempt (default 60 s). */
    public Builder timeout(Duration timeout) { this.timeout = timeout; return this; }
    /** The longest Retry-After honoured on rate_limited (default 60 s); longer waits fail at once. */
    public Builder maxRetryAfter(Duration maxRetryAfter) { this.maxRetryAfter = maxRetryAfter; return this; }
    public Builder httpClient(HttpClient httpClient) { this.httpClient = httpClient; return this; }

    /** The asynchronous client of these settings: {@code build().async()}. */
    public WdsAsyncClient buildAsync() {
      return build().async();
    }

    public WdsClient build() {
      String url = firstNonBlank(baseUrl, System.getenv("WDS_BASE_URL"), DEFAULT_BASE_URL).replaceAll("/+$", "");
      String key = firstNonBlank(apiKey, System.getenv("WDS_API_KEY"), null);
      HttpClient http = httpClient != null ? httpClient : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(timeout).build();
      return new WdsClient(new Transport(new Settings(url, key, token, maxRetries, timeout, maxRetryAfter), http));
    }

    private static String firstNonBlank(String a, String b, String fallback) {
      if (a != null && !a.isBlank()) return a;
      if (b != null && !b.isBlank()) return b;
      return fallback;
    }
  }
}
