/** The retry decisions: which failures are transient, full-jitter backoff, Retry-After, and the bounds. */
import { describe, expect, it } from "vitest";
import { LlmClientError } from "../../src/model/llm-client.js";
import {
  defaultRetryPolicy,
  isRetryable,
  isRetryableStatus,
  retryDelayMs,
} from "../../src/providers/retry-policy.js";

const http = (status: number, retryAfterMs?: number) =>
  new LlmClientError(
    "http",
    "p",
    `HTTP ${status}`,
    retryAfterMs === undefined ? { status } : { status, retryAfterMs },
  );

describe("isRetryable", () => {
  it("retries 408, 425, 429 and 5xx (529 included) but not 400, 401, 404, 501", () => {
    for (const status of [408, 425, 429, 500, 502, 503, 504, 529])
      expect(isRetryableStatus(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 422, 501, 505]) expect(isRetryableStatus(status)).toBe(false);
  });

  it("retries connect failures but not timeouts, protocol, api, config or aborts", () => {
    expect(isRetryable(new LlmClientError("network", "p", "refused", { code: "ECONNREFUSED" }))).toBe(true);
    expect(isRetryable(new LlmClientError("network", "p", "odd"))).toBe(false);
    for (const kind of ["timeout", "protocol", "api", "config", "aborted"] as const) {
      expect(isRetryable(new LlmClientError(kind, "p", kind))).toBe(false);
    }
  });
});

describe("retryDelayMs", () => {
  it("draws the delay uniformly below an exponential ceiling capped at maxDelayMs", () => {
    const policy = { ...defaultRetryPolicy, maxAttempts: 10 };
    expect(retryDelayMs(policy, 1, http(503), 0, () => 0.999)).toBe(499);
    expect(retryDelayMs(policy, 3, http(503), 0, () => 0.5)).toBe(1000);
    expect(retryDelayMs(policy, 9, http(503), 0, () => 0.999)).toBe(9990);
    expect(retryDelayMs(policy, 2, http(503), 0, () => 0)).toBe(0);
  });

  it("uses Retry-After instead of the backoff", () => {
    expect(retryDelayMs(defaultRetryPolicy, 1, http(429, 4000), 0, () => 0)).toBe(4000);
  });

  it("gives up when the attempts are used or the wait would pass the total time", () => {
    expect(retryDelayMs(defaultRetryPolicy, 4, http(503), 0)).toBeUndefined();
    expect(retryDelayMs(defaultRetryPolicy, 1, http(429, 50_000), 20_000)).toBeUndefined();
    expect(retryDelayMs(defaultRetryPolicy, 1, http(429, 50_000), 5_000)).toBe(50_000);
  });
});
