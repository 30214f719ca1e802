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

  /**
   * Mails a 6-digit code to {@code email} and answers the sign-up's {@code signupToken}, which
   * {@code verify} needs with that code. Not retried: each call sends a new code.
   */
  public SignupResult signup(String email, String password) {
    return Transport.await(async.signup(email, password));
  }

  /**
   * Verifies the mailed code of the sign-up whose {@code signupToken} is given; returns the account's
   * first key, the only time it is shown. Not retried.
   *
   * <pre>{@code
   * SignupResult signup = client.developer().signup(email, password);
   * ApiKey first = client.developer().verify(email, "042917", signup.signupToken());
   * }</pre>
   */
  public ApiKey verify(String email, String code, String signupToken) {
    return Transport.await(async.verify(email, code, signupToken));
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
