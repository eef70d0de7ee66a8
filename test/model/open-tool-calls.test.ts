import { describe, expect, it } from "vitest";
import { assistantMessage, toolCall, toolResult, userMessage } from "../../src/model/items.js";
import { openToolCalls } from "../../src/model/open-tool-calls.js";

describe("openToolCalls", () => {
  it("lists the calls that have no result, in history order, wherever their results sit", () => {
    const history = [
      userMessage("go"),
      toolCall("a", "read_file", "{}"),
      toolCall("b", "list_files", "{}"),
      toolCall("c", "run_command", "{}"),
      toolResult("b", "ok"),
      assistantMessage("then"),
      toolCall("d", "read_file", "{}"),
    ];
    expect(openToolCalls(history).map((call) => call.call_id)).toEqual(["a", "c", "d"]);
  });

  it("finds none in a history whose every call is answered, or that has no calls", () => {
    expect(openToolCalls([toolCall("a", "f", "{}"), toolResult("a", "boom", true)])).toEqual([]);
    expect(openToolCalls([userMessage("hi"), assistantMessage("hello")])).toEqual([]);
  });
});
