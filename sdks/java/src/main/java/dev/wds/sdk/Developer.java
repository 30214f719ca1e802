package dev.wds.sdk;

import dev.wds.sdk.models.Account;
import dev.wds.sdk.models.ApiKey;
import dev.wds.sdk.models.Billing;
import dev.wds.sdk.models.PlanChange;
import dev.wds.sdk.models.Session;
import dev.wds.sdk.models.SignupResult;
import dev.wds.sdk.models.Usage;
import java.time.LocalDate;

/**
 * The developer portal. All but signup/verify/login need a session:
 * {@code client.withToken(client.developer().login(email, password).token())}.
 */
public final class Developer {
  private final AsyncDeveloper async;
  private final Keys keys;

  Developer(AsyncDeveloper async) {
    this.async = async;
    this.keys = new Keys(async.keys());
  }

  public Keys keys() {
    return keys;
  }

  /** Mails a 6-digit code to {@code email}. Not retried: each call sends a new code. */
  public SignupResult signup(String email, String password) {
    return Transport.await(async.signup(email, password));
  }

  /** Verifies the code; returns the account's first key, the only time it is shown. Not retried. */
  public ApiKey verify(String email, String code) {
    return Transport.await(async.verify(email, code));
  }

  /** A 24-hour session token. Retried like a GET: logging in twice is harmless. */
  public Session login(String email, String password) {
    return Transport.await(async.login(email, password));
  }

  public Account account() {
    return Transport.await(async.account());
  }

  /** Requests per day and key over the current month. */
  public Usage usage() {
    return usage(null, null);
  }

  public Usage usage(LocalDate from, LocalDate to) {
    return Transport.await(async.usage(from, to));
  }

  public Billing billing() {
    return Transport.await(async.billing());
  }

  /** Changes the plan where the deployment allows it. Not retried. */
  public PlanChange changePlan(String tier) {
    return Transport.await(async.changePlan(tier));
  }
}
