package dev.wds.sdk;

import java.net.http.HttpHeaders;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rate-limit state the service reported with an answer (all the account's keys together):
 * X-RateLimit-Limit/-Remaining/-Reset and every window of RateLimit-Policy / RateLimit.
 */
public record RateLimit(Integer limit, Integer remaining, Integer resetSeconds, List<Window> windows) {

  /** One window, e.g. {@code "minute";q=1000;w=60} with {@code "minute";r=998;t=12}. */
  public record Window(String name, Integer quota, Integer windowSeconds, Integer remaining, Integer resetSeconds) {}

  /** The rate-limit headers of an answer; null when it carries none. */
  public static RateLimit parse(HttpHeaders headers) {
    Map<String, Map<String, String>> policies = structuredList(headers.firstValue("ratelimit-policy"));
    Map<String, Map<String, String>> states = structuredList(headers.firstValue("ratelimit"));
    Integer limit = integer(headers.firstValue("x-ratelimit-limit").orElse(null));
    if (limit == null && policies.isEmpty() && states.isEmpty()) return null;
    LinkedHashSet<String> names = new LinkedHashSet<>(policies.keySet());
    names.addAll(states.keySet());
    List<Window> windows = new ArrayList<>();
    for (String name : names) {
      Map<String, String> p = policies.getOrDefault(name, Map.of());
      Map<String, String> s = states.getOrDefault(name, Map.of());
      windows.add(new Window(name, integer(p.get("q")), integer(p.get("w")), integer(s.get("r")), integer(s.get("t"))));
    }
    return new RateLimit(
        limit,
        integer(headers.firstValue("x-ratelimit-remaining").orElse(null)),
        integer(headers.firstValue("x-ratelimit-reset").orElse(null)),
        List.copyOf(windows));
  }

  /** The window of this name, if the service reported it. */
  public Optional<Window> window(String name) {
    return windows.stream().filter(w -> w.name().equals(name)).findFirst();
  }

  private static Map<String, Map<String, String>> structuredList(Optional<String> header) {
    Map<String, Map<String, String>> items = new LinkedHashMap<>();
    for (String item : header.orElse("").split(",")) {
      String[] parts = item.split(";");
      String name = parts[0].trim().replaceAll("^\"|\"$", "");
      if (name.isEmpty()) continue;
      Map<String, String> params = new LinkedHashMap<>();
      for (int i = 1; i < parts.length; i++) {
        String[] kv = parts[i].trim().split("=", 2);
        if (kv.length == 2) params.put(kv[0], kv[1]);
      }
      items.put(name, params);
    }
    return items;
  }

  private static Integer integer(String value) {
    if (value == null || value.isBlank()) return null;
    try {
      return Integer.valueOf(value.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
