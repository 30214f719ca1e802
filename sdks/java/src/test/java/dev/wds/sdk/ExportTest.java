package dev.wds.sdk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wds.sdk.errors.InvalidParameterException;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * wallets().export through the real service: the file it writes is the endpoint's answer byte for byte,
 * to a path or a stream, sync and async; a refusal (problem+json) throws its exception.
 */
class ExportTest {
  static final WdsClient client = WdsClient.builder().baseUrl(Harness.BASE_URL).apiKey(Harness.API_KEY).build();

  static byte[] rawExport(String query) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create(Harness.BASE_URL + "/v1/wallets/" + Harness.WALLET + "/export?" + query))
        .header("X-API-Key", Harness.API_KEY).build();
    HttpResponse<byte[]> answer = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, answer.statusCode());
    return answer.body();
  }

  @Test
  void streamsTheCsvToAFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("koinly.csv");
    ExportResult result = client.wallets().export(Harness.WALLET, new ExportParams("koinly").chain("ethereum"), file);
    byte[] written = Files.readAllBytes(file);
    assertArrayEquals(rawExport("format=koinly&chain=ethereum"), written);
    assertTrue(new String(written, "UTF-8").split("\r\n").length > 2);
    assertEquals(written.length, result.bytes());
    assertEquals("wds_koinly_" + Harness.WALLET + "_ethereum.csv", result.fileName());
    assertEquals(200, result.response().status());
  }

  @Test
  void streamsToAnOutputStreamSyncAndAsync() throws Exception {
    ExportParams params = new ExportParams("wds").chain("ethereum").fromDate(LocalDate.parse("2020-01-01"));
    byte[] expected = rawExport("format=wds&chain=ethereum&fromDate=2020-01-01");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    client.wallets().export(Harness.WALLET, params, out);
    assertArrayEquals(expected, out.toByteArray());
    ByteArrayOutputStream asyncOut = new ByteArrayOutputStream();
    client.async().wallets().export(Harness.WALLET, params, asyncOut).get();
    assertArrayEquals(expected, asyncOut.toByteArray());
  }

  @Test
  void aProblemAnswerThrowsItsException() {
    InvalidParameterException error = assertThrows(
        InvalidParameterException.class,
        () -> client.wallets().export(Harness.WALLET, new ExportParams("excel"), new ByteArrayOutputStream()));
    assertEquals(400, error.status());
    assertTrue(error.detail().contains("format"), error.detail());
  }
}
