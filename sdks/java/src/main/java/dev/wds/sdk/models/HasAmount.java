package dev.wds.sdk.models;

import dev.wds.sdk.Amounts;
import java.math.BigDecimal;
import java.math.BigInteger;

/** Records with an exact decimal amount string. */
public interface HasAmount {
  /** The amount as the API sends it: an exact decimal string with the asset's decimals. */
  String amount();

  /** The amount in base units as an integer string, when the service sends it; else null. */
  String amountRaw();

  /** The amount as an exact BigDecimal. */
  default BigDecimal decimal() {
    return new BigDecimal(amount());
  }

  /** The amount in base units: {@code amountRaw()} when sent, else the decimal string read exactly. */
  default BigInteger baseUnits() {
    return amountRaw() != null ? new BigInteger(amountRaw()) : Amounts.baseUnitsOf(amount());
  }
}
