package dev.wds.sdk.errors;

/** Problem code of the same name (docs/errors.md). */
public class UpstreamException extends WdsException {
  public UpstreamException(Init init) {
    super(init);
  }
}
