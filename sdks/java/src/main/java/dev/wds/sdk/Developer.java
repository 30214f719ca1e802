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

/**
 * The developer portal. All but signup/verify/login need a session:
 * {@code client.withToken(client.developer().login(email, password).token())}.
 */
public final class Developer {
  private final Transport transport;
  private final Keys keys;

  Developer(Transport transport) {
    this.transport = transport;
    this.keys = new Keys(transport);
  }

  public Keys keys() {
    return keys;
  }

  /** Mails a 6-digit code to {@code email}. Not retried: each call sends a new code. */
  public SignupResult signup(String email, String password) {
    return transport.request(
        new Spec("POST", "/v1/developer/signup", null, Map.of("email", email, "password", password), Auth.NONE, false), SignupResult.class);
  }

  /** Verifies the code; returns the account's first key, the only time it is shown. Not retried. */
  public ApiKey verify(String email, String code) {
    return transport.request(
        new Spec("POST", "/v1/developer/verify", null, Map.of("email", email, "code", code), Auth.NONE, false), ApiKey.class);
  }

  /** A 24-hour session token. Retried like a GET: logging in twice is harmless. */
  public Session login(String email, String password) {
    return transport.request(
        new Spec("POST", "/v1/developer/login", null, Map.of("email", email, "password", password), Auth.NONE, true), Session.class);
  }

  public Account account() {
    return transport.request(new Spec("GET", "/v1/developer/account", null, null, Auth.TOKEN, true), Account.class);
  }

  /** Requests per day and key over the current month. */
  public Usage usage() {
    return usage(null, null);
  }

  public Usage usage(LocalDate from, LocalDate to) {
    Map<String, Object> query = new HashMap<>();
    query.put("from", from);
    query.put("to", to);
    return transport.request(new Spec("GET", "/v1/developer/usage", query, null, Auth.TOKEN, true), Usage.class);
  }

  public Billing billing() {
    return transport.request(new Spec("GET", "/v1/developer/billing", null, null, Auth.TOKEN, true), Billing.class);
  }

  /** Changes the plan where the deployment allows it. Not retried. */
  public PlanChange changePlan(String tier) {
    return transport.request(new Spec("POST", "/v1/developer/billing/plan", null, Map.of("tier", tier), Auth.TOKEN, false), PlanChange.class);
  }
}
