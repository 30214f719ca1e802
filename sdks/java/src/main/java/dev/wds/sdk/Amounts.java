package dev.wds.sdk;

import java.math.BigDecimal;
import java.math.BigInteger;

/** Amounts arrive as exact decimal strings with the asset's decimals ("1.500001" for 6 decimals). */
public final class Amounts {
  private Amounts() {}

  /** {@code toBaseUnits("1.500001", 6)} → 1500001; throws when the string has more places than {@code decimals}. */
  public static BigInteger toBaseUnits(String amount, int decimals) {
    if (!amount.matches("-?\\d+(\\.\\d+)?")) throw new NumberFormatException("not a decimal amount: \"" + amount + "\"");
    BigDecimal value = new BigDecimal(amount);
    if (value.scale() > decimals) throw new ArithmeticException("\"" + amount + "\" has more than " + decimals + " decimal places");
    return value.movePointRight(decimals).toBigIntegerExact();
  }

  /** {@code fromBaseUnits(1500001, 6)} → "1.500001": the API's own formatting. */
  public static String fromBaseUnits(BigInteger units, int decimals) {
    return new BigDecimal(units, decimals).toPlainString();
  }

  /** An amount string in base units, read with its own decimals (it carries exactly the asset's). */
  public static BigInteger baseUnitsOf(String amount) {
    return new BigDecimal(amount).unscaledValue();
  }
}
