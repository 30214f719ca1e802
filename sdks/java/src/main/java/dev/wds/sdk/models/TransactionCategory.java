package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * A transaction's category as the service sent it: {@link #value()} is the enum this SDK knows, or
 * {@link Value#UNKNOWN} for a category the service added later (it adds, never renames), and
 * {@link #asString()} is always the string sent. The service advises reading an unknown one as
 * {@code contract-interaction}.
 *
 * <pre>{@code
 * switch (tx.category().value()) {
 *   case SWAP -> …
 *   case UNKNOWN -> log("a category newer than this SDK: " + tx.category().asString());
 *   default -> …
 * }
 * }</pre>
 */
public final class TransactionCategory {
  /** The categories this SDK knows (docs/transactions.md in the service's repository), and UNKNOWN. */
  public enum Value {
    SEND, RECEIVE, SELF, TOKEN_SEND, TOKEN_RECEIVE, NFT_SEND, NFT_RECEIVE, SWAP, NFT_PURCHASE, NFT_SALE,
    MINT, BURN, AIRDROP, DEPOSIT, WITHDRAWAL, REWARD, YIELD, FEE_ONLY, CONTRACT_INTERACTION,
    /** A category newer than this SDK: its string is in {@link TransactionCategory#asString()}. */
    UNKNOWN;

    /** The string the API uses: {@code token-send} for TOKEN_SEND; null for UNKNOWN. */
    public String wireName() {
      return this == UNKNOWN ? null : name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
  }

  private final Value value;
  private final String raw;

  private TransactionCategory(Value value, String raw) {
    this.value = value;
    this.raw = raw;
  }

  /** The category named {@code raw}: a known value, or UNKNOWN keeping {@code raw}. */
  @JsonCreator
  public static TransactionCategory of(String raw) {
    for (Value known : Value.values()) if (raw.equals(known.wireName())) return new TransactionCategory(known, raw);
    return new TransactionCategory(Value.UNKNOWN, raw);
  }

  public Value value() {
    return value;
  }

  /** The category as the service sent it. */
  @JsonValue
  public String asString() {
    return raw;
  }

  public boolean isKnown() {
    return value != Value.UNKNOWN;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof TransactionCategory that && raw.equals(that.raw);
  }

  @Override
  public int hashCode() {
    return raw.hashCode();
  }

  @Override
  public String toString() {
    return raw;
  }
}
