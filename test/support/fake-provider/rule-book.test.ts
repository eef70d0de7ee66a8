/**
 * The rule book is data a reader can audit: every rule has an id of its own, binds one
 * protocol, and says where it comes from (the vendor's documentation or its refusal's text);
 * every protocol has rules, and a body no rule binds passes.
 */
import { describe, expect, it } from "vitest";
import { ruleBook, vendorRejection } from "./rule-book.js";

describe("the fake provider's rule book", () => {
  it("names each rule once, each with the source it cites", () => {
    const ids = ruleBook.map((rule) => rule.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const rule of ruleBook) {
      expect(rule.id, rule.id).toMatch(/^[a-z0-9-]+(\.[a-z0-9.-]+)+$/);
      expect(rule.source.length, rule.id).toBeGreaterThan(30);
    }
  });

  it("has rules for every protocol", () => {
    expect(new Set(ruleBook.map((rule) => rule.protocol))).toEqual(
      new Set(["chat_completions", "responses", "anthropic", "gemini"]),
    );
  });

  it("refuses with the first rule a body breaks, and lets a neutral body pass", () => {
    const body = { model: "gpt-4.1", messages: [{ role: "tool", tool_call_id: "x", content: "" }], top_k: 3 };
    expect(JSON.parse(vendorRejection("chat_completions", body, "gpt-4.1", new Map())!.body!)).toMatchObject({
      error: { param: "messages.[0].role" },
    });
    expect(
      vendorRejection("chat_completions", { ...body, messages: [] }, "gpt-4.1", new Map())?.body,
    ).toContain("top_k");
    expect(
      vendorRejection("chat_completions", { ...body, messages: [] }, "test-model", new Map()),
    ).toBeUndefined();
    expect(vendorRejection("chat_completions", "not an object", "gpt-4.1", new Map())).toBeUndefined();
  });
});
