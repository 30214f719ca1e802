package dev.wds.sdk.models;

import dev.wds.sdk.ResponseInfo;

/** A result of a call: carries the answer's status, request id and rate-limit state. */
public interface HasResponse {
  ResponseInfo response();
}
