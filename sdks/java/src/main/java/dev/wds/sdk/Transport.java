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
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.RecordComponent;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Sends requests: the key in X-API-Key, retries with backoff, problem+json to exceptions. Asynchronous
 * underneath ({@code HttpClient.sendAsync}); the synchronous client waits on the same futures.
 */
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

  /** A single answer as {@code type}, with its {@link ResponseInfo} attached. */
  <T> CompletableFuture<T> requestAsync(Spec spec, Class<T> type) {
    JavaType javaType = MAPPER.getTypeFactory().constructType(type);
    return map(send(spec), result -> withResponse(read(result.body, javaType), result.info));
  }

  <T> T request(Spec spec, Class<T> type) {
    return await(requestAsync(spec, type));
  }

  /** One page of a list endpoint; its {@code nextPage()} asks for the page after it the same way. */
  <T> CompletableFuture<AsyncPage<T>> pageAsync(String path, Map<String, Object> query, String cursor, Class<T> itemType) {
    HashMap<String, Object> withCursor = new HashMap<>(query);
    withCursor.put("cursor", cursor);
    JavaType type = MAPPER.getTypeFactory().constructParametricType(ListEnvelope.class, itemType);
    return map(send(Spec.get(path, withCursor)), result -> {
      ListEnvelope<T> envelope = read(result.body, type);
      return new AsyncPage<>(envelope, result.info, next -> pageAsync(path, query, next, itemType));
    });
  }

  private record Result(byte[] body, ResponseInfo info) {}

  private static final Pattern FILE_NAME = Pattern.compile("filename=\"([^\"]+)\"");

  /**
   * A streamed answer (an export) copied to {@code out} as it comes, on the common pool; {@code out} is
   * left open. The timeout counts until the answer's headers; an error answer completes with its
   * WdsException. Not retried: bytes may already be written when a failure comes.
   */
  CompletableFuture<ExportResult> streamAsync(Spec spec, OutputStream out) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(build(spec).uri()).timeout(settings.timeout())
        .header("accept", "text/csv, application/problem+json");
    if (settings.apiKey() != null) builder.header("x-api-key", settings.apiKey());
    CompletableFuture<HttpResponse<InputStream>> exchange = http.sendAsync(builder.GET().build(), HttpResponse.BodyHandlers.ofInputStream());
    return exchange.thenApplyAsync(response -> copy(response, out)).handle((value, failure) -> {
      if (failure == null) return value;
      Throwable cause = unwrap(failure);
      WdsException error = cause instanceof WdsException wds ? wds : connectionError(cause);
      if (error != null) throw error;
      throw cause instanceof RuntimeException runtime ? runtime : new CompletionException(cause);
    });
  }

  private static ExportResult copy(HttpResponse<InputStream> response, OutputStream out) {
    ResponseInfo info = new ResponseInfo(
        response.statusCode(), response.headers().firstValue("x-request-id").orElse(null), RateLimit.parse(response.headers()));
    try (InputStream body = response.body()) {
      if (response.statusCode() < 200 || response.statusCode() >= 300) {
        throw errorFrom(response.statusCode(), response.headers(), body.readAllBytes(), info);
      }
      long bytes = body.transferTo(out);
      out.flush();
      Matcher name = FILE_NAME.matcher(response.headers().firstValue("content-disposition").orElse(""));
      return new ExportResult(bytes, name.find() ? name.group(1) : null, info);
    } catch (IOException e) {
      throw new CompletionException(e);
    }
  }

  /**
   * Sends a request, retrying it (when idempotent) as {@link Retry} decides; completes with the answer
   * or the last error itself (never wrapped in a CompletionException). The one retry loop of the SDK:
   * the synchronous client waits on it ({@link #await}). Cancelling the future cancels the exchange in
   * flight and any retry still to come.
   */
  private CompletableFuture<Result> send(Spec spec) {
    CompletableFuture<Result> result = new CompletableFuture<>();
    HttpRequest request;
    try {
      request = build(spec);
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return result;
    }
    attempt(request, spec.idempotent() ? settings.maxRetries() : 0, 0, result);
    return result;
  }

  private void attempt(HttpRequest request, int maxRetries, int retry, CompletableFuture<Result> result) {
    if (result.isDone()) return; // cancelled by the caller while waiting to retry
    CompletableFuture<HttpResponse<byte[]>> exchange;
    try {
      exchange = http.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (RuntimeException | Error refused) { // e.g. a client already shut down: no answer will come
      result.completeExceptionally(refused);
      return;
    }
    result.whenComplete((value, failure) -> {
      if (result.isCancelled()) exchange.cancel(true);
    });
    exchange.whenComplete((response, failure) -> {
      WdsException error;
      try {
        if (failure == null) {
          result.complete(resultOf(response));
          return;
        }
        error = connectionError(unwrap(failure));
      } catch (WdsException answered) {
        error = answered;
      } catch (RuntimeException | Error unexpected) {
        result.completeExceptionally(unexpected);
        return;
      }
      if (error == null) {
        result.completeExceptionally(unwrap(failure));
        return;
      }
      Double delay = retry < maxRetries && Retry.shouldRetry(error)
          ? Retry.retryDelaySeconds(retry, error, settings.maxRetryAfter().toMillis() / 1000.0, ThreadLocalRandom.current()::nextDouble)
          : null;
      if (delay == null) {
        result.completeExceptionally(error);
        return;
      }
      // the next attempt only starts an exchange (sendAsync does not block): run it on the delay's own thread
      CompletableFuture.delayedExecutor(Math.round(delay * 1000), TimeUnit.MILLISECONDS, Runnable::run)
          .execute(() -> attempt(request, maxRetries, retry + 1, result));
    });
  }

  /**
   * The value of a future, for the synchronous client: its own error is thrown as it is (with this
   * thread's stack trace, where the caller can see it); interrupting the thread cancels the request.
   */
  static <T> T await(CompletableFuture<T> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw new ApiConnectionException(new WdsException.Init(0, "connection_error", "interrupted", null, null, null, null, null, e));
    } catch (ExecutionException e) {
      Throwable cause = unwrap(e);
      if (cause instanceof RuntimeException runtime) {
        runtime.fillInStackTrace();
        throw runtime;
      }
      if (cause instanceof Error error) throw error;
      throw new IllegalStateException(cause);
    }
  }

  /** {@code source} mapped by {@code fn}, failing with the error itself; cancelling it cancels {@code source}. */
  static <A, B> CompletableFuture<B> map(CompletableFuture<A> source, Function<A, B> fn) {
    CompletableFuture<B> out = new CompletableFuture<>();
    source.whenComplete((value, failure) -> {
      if (failure != null) {
        out.completeExceptionally(unwrap(failure));
        return;
      }
      try {
        out.complete(fn.apply(value));
      } catch (RuntimeException | Error e) {
        out.completeExceptionally(e);
      }
    });
    out.whenComplete((value, failure) -> {
      if (out.isCancelled()) source.cancel(true);
    });
    return out;
  }

  /** The error inside CompletionException / ExecutionException wrappers. */
  static Throwable unwrap(Throwable failure) {
    Throwable cause = failure;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null) cause = cause.getCause();
    return cause;
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

  /** No answer came: the error it makes (retried), or null for a failure that is not the connection's. */
  private WdsException connectionError(Throwable failure) {
    if (failure instanceof HttpTimeoutException) {
      return new ApiTimeoutException(new WdsException.Init(0, "timeout", "no answer within " + settings.timeout(), null, null, null, null, null, failure));
    }
    if (failure instanceof IOException) {
      return new ApiConnectionException(
          new WdsException.Init(0, "connection_error", "the connection failed before an answer came", null, null, null, null, null, failure));
    }
    return null;
  }

  /** A 2xx answer as a Result; any other as the WdsException of its problem code (thrown). */
  private static Result resultOf(HttpResponse<byte[]> response) {
    ResponseInfo info = new ResponseInfo(
        response.statusCode(), response.headers().firstValue("x-request-id").orElse(null), RateLimit.parse(response.headers()));
    if (response.statusCode() >= 200 && response.statusCode() < 300) return new Result(response.body(), info);
    throw errorFrom(response, info);
  }

  private static WdsException errorFrom(HttpResponse<byte[]> response, ResponseInfo info) {
    return errorFrom(response.statusCode(), response.headers(), response.body(), info);
  }

  private static WdsException errorFrom(int status, java.net.http.HttpHeaders headers, byte[] body, ResponseInfo info) {
    Map<String, Object> problem = null;
    try {
      Map<String, Object> parsed = MAPPER.readValue(body, new TypeReference<Map<String, Object>>() {});
      if (parsed.get("code") instanceof String) problem = parsed;
    } catch (IOException | RuntimeException notJson) {
      // not a problem+json body: described by its status below
    }
    String text = new String(body, StandardCharsets.UTF_8);
    String code = problem != null ? (String) problem.get("code") : "http_" + status;
    String detail = problem != null ? String.valueOf(problem.get("detail")) : text.substring(0, Math.min(200, text.length()));
    String requestId = problem != null && problem.get("requestId") instanceof String id ? id : info.requestId();
    return ProblemCodes.create(new WdsException.Init(
        status,
        code,
        detail,
        problem != null && problem.get("param") instanceof String p ? p : null,
        requestId,
        info.rateLimit(),
        Retry.parseRetryAfter(headers.firstValue("retry-after").orElse(null), System.currentTimeMillis()),
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
