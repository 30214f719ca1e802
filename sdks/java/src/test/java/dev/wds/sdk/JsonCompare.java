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
    com.fasterxml.jackson.databind.node.ObjectNode json = (com.fasterxml.jackson.databind.node.ObjectNode) asJson(model);
    List<String> absent = new ArrayList<>();
    json.fieldNames().forEachRemaining(name -> {
      if (json.get(name).isNull() && !raw.has(name)) absent.add(name);
    });
    json.remove(absent);
    return json;
  }

  static List<JsonNode> asSentAs(List<?> models, List<JsonNode> raw) throws IOException {
    List<JsonNode> out = new ArrayList<>();
    for (int i = 0; i < models.size(); i++) out.add(asSentAs(models.get(i), i < raw.size() ? raw.get(i) : Transport.MAPPER.createObjectNode()));
    return out;
  }

}
