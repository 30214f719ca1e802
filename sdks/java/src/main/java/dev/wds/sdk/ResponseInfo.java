package dev.wds.sdk;

/** What came with an answer besides its body. */
public record ResponseInfo(int status, String requestId, RateLimit rateLimit) {}
