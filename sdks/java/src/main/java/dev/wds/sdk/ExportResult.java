package dev.wds.sdk;

/** What an export wrote: its bytes, the file name the service gave it (or null), and the answer's info. */
public record ExportResult(long bytes, String fileName, ResponseInfo response) {}
