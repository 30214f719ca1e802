package dev.wds.sdk;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/** Models compared with the API's own JSON. */
final class JsonCompare {
  private JsonCompare() {}

  /** A model as JSON, read back the way the raw answer is read (so numbers compare alike). */
  static JsonNode asJson(Object model) throws IOException {
    return Transport.MAPPER.readTree(Transport.MAPPER.writeValueAsString(model));
  }

  /**
   * A model as the API's JSON: fields the model types but the answer did not carry (null in the record)
   * are left out, so that the two compare exactly.
   */
  static JsonNode asSentAs(Object model, JsonNode raw) throws IOException {
    JsonNode json = asJson(model);
    leaveOutUnsent(json, raw);
    return json;
  }

  /** Removes the null fields {@code raw} does not have, also in nested objects and arrays (a transaction's records). */
  private static void leaveOutUnsent(JsonNode json, JsonNode raw) {
    if (json instanceof com.fasterxml.jackson.databind.node.ObjectNode object) {
      List<String> absent = new ArrayList<>();
      object.fieldNames().forEachRemaining(name -> {
        if (object.get(name).isNull() && !raw.has(name)) absent.add(name);
        else leaveOutUnsent(object.get(name), raw.path(name));
      });
      object.remove(absent);
    } else if (json.isArray()) {
      for (int i = 0; i < json.size(); i++) leaveOutUnsent(json.get(i), raw.path(i));
    }
  }

  static List<JsonNode> asSentAs(List<?> models, List<JsonNode> raw) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (int i = 0; i < models.size(); i++) out.add(asSentAs(models.get(i), i < raw.size() ? raw.get(i) : Transport.MAPPER.createObjectNode()));
    return out;
  }

}
