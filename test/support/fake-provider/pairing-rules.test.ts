/**
 * The fake's pairing rules refuse what the vendors refuse (so tests that lean on them can fail):
 * a tool call with no result after it, a result with no call before it, and (Anthropic) a signed
 * thinking block whose text was edited; a well-paired conversation passes.
 */
import { describe, expect, it } from "vitest";
import { type Item, reasoning, toolCall, toolResult, userMessage } from "../../../src/model/items.js";
import { clientFor, collect, protocols } from "../../providers/stream-helpers.js";
import { text, reasoning as thinkingReply } from "./index.js";
import { withFakeProvider } from "./with-fake-provider.js";

const fake = withFakeProvider({ script: () => text("ok") });

const tool = { name: "read_file", description: "read", input_schema: { type: "object", properties: {} } };

async function send(protocol: (typeof protocols)[number], items: Item[]) {
  return collect(clientFor(protocol, fake().baseUrl, { retry: { maxAttempts: 1 } }), {
    items,
    tools: [tool],
    config: {},
  });
}

describe.each(protocols)("the fake speaking %s", (protocol) => {
  const call = toolCall("call_1", "read_file", "{}");
  const result = toolResult("call_1", "content");

  it("takes a call followed by its result", async () => {
    const { error } = await send(protocol, [userMessage("a"), call, result, userMessage("b")]);
    expect(error).toBeUndefined();
  });

  it("refuses a call whose result is missing", async () => {
    const { error } = await send(protocol, [userMessage("a"), call, userMessage("b")]);
    expect(error?.status).toBe(400);
  });

  it("refuses a result whose call is missing", async () => {
    const { error } = await send(protocol, [userMessage("a"), result, userMessage("b")]);
    expect(error?.status).toBe(400);
  });
});

it("refuses an Anthropic thinking block edited after it was signed", async () => {
  fake().queue(thinkingReply("the real thought", text("hi"), { signature: "sig-real" }));
  await collect(clientFor("anthropic", fake().baseUrl), { items: [userMessage("a")], tools: [], config: {} });
  const origin = { provider: "anthropic", model: "test-model" };
  const edited = reasoning("an edited thought", { signature: "sig-real", origin });
  const kept = reasoning("the real thought", { signature: "sig-real", origin });
  const assistant: Item = { type: "message", role: "assistant", content: [{ type: "text", text: "hi" }] };
  const bad = await send("anthropic", [userMessage("a"), edited, assistant, userMessage("b")]);
  expect(bad.error?.message).toContain("Invalid `signature` in `thinking` block");
  const good = await send("anthropic", [userMessage("a"), kept, assistant, userMessage("b")]);
  expect(good.error).toBeUndefined();
});
