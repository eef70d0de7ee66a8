/** A provider's error object as a typed error: its message and code, and fallbacks for what it lacks. */
import { describe, expect, it } from "vitest";
import { providerStreamErrorOf } from "../../src/providers/stream-errors.js";

describe("providerStreamErrorOf", () => {
  it("takes the message and the first code field holding text", () => {
    const error = providerStreamErrorOf(
      "p",
      { message: "slow down", type: "overloaded_error" },
      ["code", "type"],
      {
        message: "unknown error",
      },
    );
    expect(error).toMatchObject({ kind: "api", code: "overloaded_error", transient: true });
    expect(error.message).toBe("p error overloaded_error: slow down");
  });

  it("prefers a code in text to one in numbers, whatever their order", () => {
    const error = providerStreamErrorOf("p", { code: 429, type: "rate_limit" }, ["code", "type"], {
      message: "m",
    });
    expect(error.code).toBe("rate_limit");
    expect(providerStreamErrorOf("p", { code: 503 }, ["status", "code"], { message: "m" }).code).toBe("503");
  });

  it("stands in the fallbacks for a missing message and code, or for no object at all", () => {
    const error = providerStreamErrorOf("p", undefined, ["code"], {
      message: "the response failed",
      code: "response_failed",
    });
    expect(error).toMatchObject({ code: "response_failed", transient: false });
    expect(error.message).toBe("p error response_failed: the response failed");
    expect(providerStreamErrorOf("p", {}, ["code"], { message: "boom" }).message).toBe("p error: boom");
  });
});
