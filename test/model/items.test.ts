import { describe, expect, it } from "vitest";
import { isToolResult, messageText, payloadFits, toolResult, userMessage } from "../../src/model/items.js";

describe("conversation items", () => {
  it("keeps is_error only when a tool result is an error", () => {
    expect(toolResult("c1", "ok")).toEqual({ type: "tool_result", call_id: "c1", output: "ok" });
    expect(toolResult("c1", "boom", true).is_error).toBe(true);
    expect(isToolResult(toolResult("c1", "ok"))).toBe(true);
  });

  it("reads the text of a message", () => {
    expect(messageText(userMessage("Hi"))).toBe("Hi");
  });
});

describe("payloadFits", () => {
  const origin = { provider: "anthropic", model: "claude-sonnet-4-5" };
  it("accepts the same provider and model, and untagged items from logs written before tagging", () => {
    expect(payloadFits(origin, { ...origin })).toBe(true);
    expect(payloadFits(undefined, origin)).toBe(true);
  });
  it("refuses another provider or another model", () => {
    expect(payloadFits(origin, { provider: "gemini", model: "claude-sonnet-4-5" })).toBe(false);
    expect(payloadFits(origin, { provider: "anthropic", model: "claude-opus-4-1" })).toBe(false);
  });
});
