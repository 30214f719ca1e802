package dev.wds.sdk;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The coordinates scripts/sdk-harness.ts gives the suite, and the fault proxy's controls. */
final class Harness {
  static final String BASE_URL = required("WDS_BASE_URL");
  static final String API_KEY = required("WDS_API_KEY");
  static final String WALLET = required("WDS_TEST_WALLET");
  static final String TOKEN = required("WDS_TEST_TOKEN");
  static final String NFT = required("WDS_TEST_NFT");
  static final int MIN_RECORDS = Integer.parseInt(required("WDS_TEST_MIN_RECORDS"));
  static final String QUOTA_KEY = required("WDS_TEST_QUOTA_KEY");
  static final String PROXY_URL = required("WDS_TEST_PROXY_URL");
  static final String PROXY_CONTROL_URL = required("WDS_TEST_PROXY_CONTROL_URL");
  static final String SERVICE_LOG = required("WDS_TEST_SERVICE_LOG");

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private Harness() {}

  private static String required(String name) {
    String value = System.getenv(name);
    if (value == null || value.isEmpty()) throw new IllegalStateException(name + " is not set: run the suite through scripts/test-sdks.sh");
    return value;
  }

  /** Queues faults for the next requests through the proxy (and clears its log). */
  static void queueFaults(String json) throws IOException, InterruptedException {
    HttpResponse<String> answer = HTTP.send(
        HttpRequest.newBuilder(URI.create(PROXY_CONTROL_URL + "/faults")).POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 204) throw new IllegalStateException("the fault proxy refused the faults: " + answer.statusCode());
  }

  static List<Map<String, Object>> seenByProxy() throws IOException, InterruptedException {
    String body = HTTP.send(HttpRequest.newBuilder(URI.create(PROXY_CONTROL_URL + "/log")).build(), HttpResponse.BodyHandlers.ofString()).body();
    return Transport.MAPPER.readValue(body, new TypeReference<List<Map<String, Object>>>() {});
  }

  static List<Double> gapsMs(List<Map<String, Object>> seen) {
    List<Double> gaps = new ArrayList<>();
    for (int i = 1; i < seen.size(); i++) {
      gaps.add(((Number) seen.get(i).get("atMs")).doubleValue() - ((Number) seen.get(i - 1).get("atMs")).doubleValue());
    }
    return gaps;
  }

  static JsonNode rawGet(String pathAndQuery) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(BASE_URL + pathAndQuery)).header("X-API-Key", API_KEY).build();
    return Transport.MAPPER.readTree(HTTP.send(request, HttpResponse.BodyHandlers.ofString()).body());
  }

  /** Every record of the raw pages of a list endpoint, in order. */
  static List<JsonNode> rawRecords(String path, String query) throws IOException, InterruptedException {
    return rawItems(path, query, "transfers");
  }

  /** Every item ({@code key}: transfers or transactions) of the raw pages of a list endpoint, in order. */
  static List<JsonNode> rawItems(String path, String query, String key) throws IOException, InterruptedException {
    List<JsonNode> records = new ArrayList<>();
    String cursor = null;
    do {
      JsonNode body = rawGet(path + "?" + query + (cursor == null ? "" : "&cursor=" + cursor));
      body.get(key).forEach(records::add);
      cursor = body.get("hasMore").asBoolean() ? body.get("cursor").asText() : null;
    } while (cursor != null);
    return records;
  }

  /**
   * The one-time code the service "mailed" to {@code email} (no SMTP_URL: it is in the log). The log line
   * may reach the file a little after the answer: the log is read until it is there (5 s at most).
   */
  static String mailedCode(String email) throws IOException, InterruptedException {
    for (int attempt = 0; attempt < 50; attempt++) {
      String code = findMailedCode(email);
      if (code != null) return code;
      Thread.sleep(100);
    }
    throw new AssertionError("no code was mailed to " + email);
  }

  private static String findMailedCode(String email) throws IOException {
    List<String> lines = Files.readAllLines(Path.of(SERVICE_LOG));
    Collections.reverse(lines);
    for (String line : lines) {
      if (!line.contains(email)) continue;
      JsonNode entry = Transport.MAPPER.readTree(line);
      if (!email.equals(entry.path("mail_to").asText())) continue;
      Matcher code = Pattern.compile("\\b(\\d{6})\\b").matcher(entry.path("text").asText());
      if (code.find()) return code.group(1);
    }
    return null;
  }
}
