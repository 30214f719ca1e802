package dev.wds.sdk.models;

import java.util.Map;

/** Every model: a record of the fields the SDK types, plus {@code extra} for those it does not know yet. */
public interface Model {
  Map<String, Object> extra();
}
