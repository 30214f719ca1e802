package dev.wds.sdk.models;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import java.util.List;
import java.util.Map;

/**
 * Whether a record (or a balance's token) is spam, the reasons that fired and where the verdict comes
 * from ({@code computed}, or {@code account}: the account's override). Reasons are strings: the ones
 * documented today are {@link #KNOWN_REASONS}; a reason added later arrives as its string.
 */
public record Spam(
    Boolean flagged,
    List<String> reasons,
    String source,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extra)
    implements Model {
  /** The reasons the service documents (docs/spam.md). */
  public static final List<String> KNOWN_REASONS =
      List.of(
          "impersonates-listed-token",
          "lure-in-metadata",
          "mass-airdrop",
          "address-poisoning",
          "zero-value-transfer-from");

  public Spam {
    extra = extra == null ? new java.util.LinkedHashMap<>() : extra;
  }
}
