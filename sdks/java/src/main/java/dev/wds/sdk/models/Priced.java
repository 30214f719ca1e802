package dev.wds.sdk.models;

import java.util.Locale;

/** Records with {@code price_<ccy>} / {@code value_<ccy>} (with includePrices=true), for any currency. */
public interface Priced extends Model {
  /** {@code price_<ccy>}, or null when no price is known or prices were not asked for. */
  default Double priceIn(String currency) {
    return number(extra().get("price_" + currency.toLowerCase(Locale.ROOT)));
  }

  /** {@code value_<ccy>} (see priceIn). */
  default Double valueIn(String currency) {
    return number(extra().get("value_" + currency.toLowerCase(Locale.ROOT)));
  }

  static Double number(Object value) {
    return value instanceof Number n ? n.doubleValue() : null;
  }
}
