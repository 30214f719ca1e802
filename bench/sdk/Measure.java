import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wds.sdk.TransferParams;
import dev.wds.sdk.WdsClient;
import dev.wds.sdk.models.Transfer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The Java SDK's iterator vs raw java.net.http pages read with Jackson; prints {"raw": [...], "sdk": [...]} (see bench/sdk.ts). */
public class Measure {
  static final String BASE_URL = System.getenv("WDS_BASE_URL");
  static final String API_KEY = System.getenv("WDS_API_KEY");
  static final String WALLET = System.getenv("WDS_TEST_WALLET");
  static final ObjectMapper MAPPER = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    int limit = Integer.parseInt(args[0]);
    int rounds = Integer.parseInt(args[1]);
    HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    WdsClient client = WdsClient.builder().baseUrl(BASE_URL).apiKey(API_KEY).build();
    rawWalk(http, limit);
    sdkWalk(client, limit); // warm-up: the JIT and the connection pools
    List<Map<String, Object>> raw = new ArrayList<>();
    List<Map<String, Object>> sdk = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      if (round % 2 == 0) {
        raw.add(rawWalk(http, limit));
        sdk.add(sdkWalk(client, limit));
      } else {
        sdk.add(sdkWalk(client, limit));
        raw.add(rawWalk(http, limit));
      }
    }
    System.out.println(MAPPER.writeValueAsString(Map.of("raw", raw, "sdk", sdk)));
  }

  static Map<String, Object> rawWalk(HttpClient http, int limit) throws Exception {
    long started = System.nanoTime();
    long records = 0;
    long pages = 0;
    String cursor = null;
    do {
      String url = BASE_URL + "/v1/wallets/" + WALLET + "/transfers?chain=ethereum&limit=" + limit
          + (cursor == null ? "" : "&cursor=" + URLEncoder.encode(cursor, StandardCharsets.UTF_8));
      HttpRequest request = HttpRequest.newBuilder(URI.create(url)).header("X-API-Key", API_KEY).build();
      JsonNode body = MAPPER.readTree(http.send(request, HttpResponse.BodyHandlers.ofByteArray()).body());
      records += body.get("transfers").size();
      pages++;
      cursor = body.get("hasMore").asBoolean() ? body.get("cursor").asText() : null;
    } while (cursor != null);
    return Map.of("records", records, "pages", pages, "seconds", (System.nanoTime() - started) / 1e9);
  }

  static Map<String, Object> sdkWalk(WdsClient client, int limit) {
    long started = System.nanoTime();
    long records = 0;
    for (Transfer ignored : client.wallets().transfers(WALLET, new TransferParams().chain("ethereum").limit(limit)).autoPagingIterable()) records++;
    return Map.of("records", records, "pages", (records + limit - 1) / limit, "seconds", (System.nanoTime() - started) / 1e9);
  }
}
