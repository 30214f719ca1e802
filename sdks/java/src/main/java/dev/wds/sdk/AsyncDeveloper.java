package dev.wds.sdk;

import dev.wds.sdk.Transport.Auth;
import dev.wds.sdk.Transport.Spec;
import dev.wds.sdk.models.Account;
import dev.wds.sdk.models.ApiKey;
import dev.wds.sdk.models.Billing;
import dev.wds.sdk.models.PlanChange;
import dev.wds.sdk.models.Session;
import dev.wds.sdk.models.SignupResult;
import dev.wds.sdk.models.Usage;
import java.time.LocalDate;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The developer portal, asynchronously. All but signup/verify/login need a session:
 * {@code client.withToken(token).async()}.
 */
public final class AsyncDeveloper {
  private final Transport transport;
  private final AsyncKeys keys;

  AsyncDeveloper(Transport transport) {
    this.transport = transport;
    this.keys = new AsyncKeys(transport);
  }

  public AsyncKeys keys() {
    return keys;
  }

  /**
   * Mails a 6-digit code to {@code email} and completes with the sign-up's {@code signupToken}, which
   * {@code verify} needs with that code. Not retried: each call sends a new code.
   */
  public CompletableFuture<SignupResult> signup(String email, String password) {
    return transport.requestAsync(
        new Spec("POST", "/v1/developer/signup", null, Map.of("email", email, "password", password), Auth.NONE, false), SignupResult.class);
  }

  /**
   * Verifies the mailed code of the sign-up whose {@code signupToken} is given; completes with the
   * account's first key, the only time it is shown. Not retried.
   *
   * <pre>{@code
   * SignupResult signup = developer.signup(email, password).get();
   * ApiKey first = developer.verify(email, "042917", signup.signupToken()).get();
   * }</pre>
   */
  public CompletableFuture<ApiKey> verify(String email, String code, String signupToken) {
    Map<String, Object> body = Map.of("email", email, "code", code, "signupToken", signupToken);
    return transport.requestAsync(new Spec("POST", "/v1/developer/verify", null, body, Auth.NONE, false), ApiKey.class);
  }

  /** A 24-hour session token. Retried like a GET: logging in twice is harmless. */
  public CompletableFuture<Session> login(String email, String password) {
    return transport.requestAsync(
        new Spec("POST", "/v1/developer/login", null, Map.of("email", email, "password", password), Auth.NONE, true), Session.class);
  }

  public CompletableFuture<Account> account() {
    return transport.requestAsync(new Spec("GET", "/v1/developer/account", null, null, Auth.TOKEN, true), Account.class);
  }

  /** Requests per day and key over the current month. */
  public CompletableFuture<Usage> usage() {
    return usage(null, null);
  }

  public CompletableFuture<Usage> usage(LocalDate from, LocalDate to) {
    Map<String, Object> query = new HashMap<>();
    query.put("from", from);
    query.put("to", to);
    return transport.requestAsync(new Spec("GET", "/v1/developer/usage", query, null, Auth.TOKEN, true), Usage.class);
  }

  public CompletableFuture<Billing> billing() {
    return transport.requestAsync(new Spec("GET", "/v1/developer/billing", null, null, Auth.TOKEN, true), Billing.class);
  }

  /** Changes the plan where the deployment allows it. Not retried. */
  public CompletableFuture<PlanChange> changePlan(String tier) {
    return transport.requestAsync(
        new Spec("POST", "/v1/developer/billing/plan", null, Map.of("tier", tier), Auth.TOKEN, false), PlanChange.class);
  }
}
