import { describe, expect, it } from "vitest";
import { isToolResult, messageText, toolResult, userMessage } from "../../src/model/items.js";

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
