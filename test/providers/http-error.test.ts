/** Reading provider error responses: Retry-After in its three spellings and each vendor's error body. */
import { describe, expect, it } from "vitest";
import { describeErrorBody, httpStatusError, retryAfterMs } from "../../src/providers/http-error.js";

describe("retryAfterMs", () => {
  it("reads seconds, fractional seconds, an HTTP date and OpenAI's retry-after-ms", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(retryAfterMs(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(retryAfterMs(new Headers({ "retry-after": "0.25" }), now)).toBe(250);
    expect(retryAfterMs(new Headers({ "retry-after": "Wed, 01 Jan 2025 00:00:10 GMT" }), now)).toBe(10_000);
    expect(retryAfterMs(new Headers({ "retry-after": "Tue, 31 Dec 2024 00:00:00 GMT" }), now)).toBe(0);
    expect(retryAfterMs(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1500);
  });

  it("answers undefined for a missing or unreadable header", () => {
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(new Headers({ "retry-after": "soon" }))).toBeUndefined();
  });
});

describe("describeErrorBody", () => {
  it("reads the OpenAI, Anthropic and Gemini error shapes", () => {
    expect(
      describeErrorBody('{"error":{"message":"Rate limit","type":"requests","code":"rate_limit_exceeded"}}'),
    ).toEqual({
      code: "rate_limit_exceeded",
      message: "Rate limit",
    });
    expect(
      describeErrorBody('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
    ).toEqual({
      code: "overloaded_error",
      message: "Overloaded",
    });
    expect(
      describeErrorBody('[{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED"}}]'),
    ).toEqual({ code: "RESOURCE_EXHAUSTED", message: "Quota exceeded" });
    expect(describeErrorBody('{"error":"model not found"}')).toEqual({ message: "model not found" });
  });

  it("keeps a non-JSON body as the message", () => {
    expect(describeErrorBody("<html>Bad Gateway</html>")).toEqual({ message: "<html>Bad Gateway</html>" });
    expect(describeErrorBody("")).toEqual({});
  });
});

describe("httpStatusError", () => {
  it("carries status, code, message and Retry-After", () => {
    const error = httpStatusError(
      "anthropic",
      529,
      "",
      new Headers({ "retry-after": "2" }),
      '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
    );
    expect(error).toMatchObject({
      kind: "http",
      provider: "anthropic",
      status: 529,
      code: "overloaded_error",
      retryAfterMs: 2000,
    });
    expect(error.message).toBe("anthropic HTTP 529: Overloaded");
  });
});
