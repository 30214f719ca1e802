package dev.wds.sdk;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.wds.sdk.errors.ApiConnectionException;
import dev.wds.sdk.errors.ApiTimeoutException;
import dev.wds.sdk.errors.ProblemCodes;
import dev.wds.sdk.errors.WdsException;
import dev.wds.sdk.models.ListEnvelope;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.ThreadLocalRandom;

/** Sends requests: the key in X-API-Key, retries with backoff, problem+json to exceptions. */
final class Transport {
  static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  enum Auth { KEY, TOKEN, NONE }

  /** One request; {@code idempotent}: repeating it is harmless, so it may be retried. */
  record Spec(String method, String path, Map<String, Object> query, Object body, Auth auth, boolean idempotent) {
    static Spec get(String path, Map<String, Object> query) {
      return new Spec("GET", path, query, null, Auth.KEY, true);
    }
  }

  private final WdsClient.Settings settings;
  private final HttpClient http;

  Transport(WdsClient.Settings settings, HttpClient http) {
    this.settings = settings;
    this.http = http;
  }

  WdsClient.Settings settings() {
    return settings;
  }

  HttpClient http() {
    return http;
  }

  <T> T request(Spec spec, Class<T> type) {
    Result result = send(spec);
    T value = read(result.body, MAPPER.getTypeFactory().constructType(type));
    return withResponse(value, result.info);
  }

  <T> Page<T> page(String path, Map<String, Object> query, String cursor, Class<T> itemType) {
    java.util.HashMap<String, Object> withCursor = new java.util.HashMap<>(query);
    withCursor.put("cursor", cursor);
    Result result = send(Spec.get(path, withCursor));
    JavaType type = MAPPER.getTypeFactory().constructParametricType(ListEnvelope.class, itemType);
    ListEnvelope<T> envelope = read(result.body, type);
    return new Page<>(envelope, result.info, next -> page(path, query, next, itemType));
  }

  private record Result(byte[] body, ResponseInfo info) {}

  private Result send(Spec spec) {
    HttpRequest request = build(spec);
    int maxRetries = spec.idempotent() ? settings.maxRetries() : 0;
    for (int retry = 0; ; retry++) {
      try {
        return attempt(request);
      } catch (WdsException error) {
        Double delay = retry < maxRetries && Retry.shouldRetry(error)
            ? Retry.retryDelaySeconds(retry, error, settings.maxRetryAfter().toMillis() / 1000.0, ThreadLocalRandom.current()::nextDouble)
            : null;
        if (delay == null) throw error;
        try {
          Thread.sleep(Math.round(delay * 1000));
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw error;
        }
      }
    }
  }

  private HttpRequest build(Spec spec) {
    StringJoiner query = new StringJoiner("&");
    if (spec.query() != null) {
      spec.query().forEach((name, value) -> {
        if (value != null) query.add(encode(name) + "=" + encode(String.valueOf(value)));
      });
    }
    String url = settings.baseUrl() + spec.path() + (query.length() == 0 ? "" : "?" + query);
    HttpRequest.Builder builder = HttpRequest.newBuilder(URI.create(url)).timeout(settings.timeout()).header("accept", "application/json");
    if (spec.auth() == Auth.KEY && settings.apiKey() != null) builder.header("x-api-key", settings.apiKey());
    if (spec.auth() == Auth.TOKEN && settings.token() != null) builder.header("authorization", "Bearer " + settings.token());
    if (spec.body() == null) return builder.method(spec.method(), HttpRequest.BodyPublishers.noBody()).build();
    try {
      byte[] body = MAPPER.writeValueAsBytes(spec.body());
      return builder.header("content-type", "application/json").method(spec.method(), HttpRequest.BodyPublishers.ofByteArray(body)).build();
    } catch (IOException e) {
      throw new IllegalArgumentException("the request body cannot be written as JSON", e);
    }
  }

  private Result attempt(HttpRequest request) {
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (HttpTimeoutException e) {
      throw new ApiTimeoutException(new WdsException.Init(0, "timeout", "no answer within " + settings.timeout(), null, null, null, null, null, e));
    } catch (IOException e) {
      throw new ApiConnectionException(
          new WdsException.Init(0, "connection_error", "the connection failed before an answer came", null, null, null, null, null, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ApiConnectionException(new WdsException.Init(0, "connection_error", "interrupted", null, null, null, null, null, e));
    }
    ResponseInfo info = new ResponseInfo(
        response.statusCode(), response.headers().firstValue("x-request-id").orElse(null), RateLimit.parse(response.headers()));
    if (response.statusCode() >= 200 && response.statusCode() < 300) return new Result(response.body(), info);
    throw errorFrom(response, info);
  }

  private static WdsException errorFrom(HttpResponse<byte[]> response, ResponseInfo info) {
    Map<String, Object> problem = null;
    try {
      Map<String, Object> parsed = MAPPER.readValue(response.body(), new TypeReference<Map<String, Object>>() {});
      if (parsed.get("code") instanceof String) problem = parsed;
    } catch (IOException | RuntimeException notJson) {
      // not a problem+json body: described by its status below
    }
    String text = new String(response.body(), StandardCharsets.UTF_8);
    String code = problem != null ? (String) problem.get("code") : "http_" + response.statusCode();
    String detail = problem != null ? String.valueOf(problem.get("detail")) : text.substring(0, Math.min(200, text.length()));
    String requestId = problem != null && problem.get("requestId") instanceof String id ? id : info.requestId();
    return ProblemCodes.create(new WdsException.Init(
        response.statusCode(),
        code,
        detail,
        problem != null && problem.get("param") instanceof String p ? p : null,
        requestId,
        info.rateLimit(),
        Retry.parseRetryAfter(response.headers().firstValue("retry-after").orElse(null), System.currentTimeMillis()),
        problem,
        null));
  }

  private static <T> T read(byte[] body, JavaType type) {
    try {
      return MAPPER.readValue(body.length == 0 ? "{}".getBytes(StandardCharsets.UTF_8) : body, type);
    } catch (IOException e) {
      throw new WdsException(new WdsException.Init(0, "invalid_response", "the answer is not the JSON expected: " + e.getMessage(), null, null, null, null, null, e));
    }
  }

  /** A copy of a result record with its {@code response} component set. */
  @SuppressWarnings("unchecked")
  private static <T> T withResponse(T value, ResponseInfo info) {
    if (!(value instanceof Record)) return value;
    RecordComponent[] components = value.getClass().getRecordComponents();
    Object[] args = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    try {
      for (int i = 0; i < components.length; i++) {
        types[i] = components[i].getType();
        args[i] = components[i].getName().equals("response") ? info : components[i].getAccessor().invoke(value);
      }
      return (T) value.getClass().getDeclaredConstructor(types).newInstance(args);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot attach the response to " + value.getClass(), e);
    }
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
