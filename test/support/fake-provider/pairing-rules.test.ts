/**
 * The fake's pairing rules refuse what the vendors refuse (so tests that lean on them can fail):
 * a tool call with no result after it, a result with no call before it, and (Anthropic) a signed
 * thinking block whose text was edited; a well-paired conversation passes. The client pairs
 * every history it sends (history-projection.ts), so the unpaired bodies are made here by
 * taking the results (or the calls) out of a paired one, and posted as they are.
 */
import { describe, expect, it } from "vitest";
import { type Item, reasoning, toolCall, toolResult, userMessage } from "../../../src/model/items.js";
import { protocolAdapter } from "../../../src/providers/create-llm-client.js";
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

/** What `kind` is, per protocol: a call or a result of the wire body. */
function isPart(
  protocol: (typeof protocols)[number],
  kind: "results" | "calls",
  part: Record<string, unknown>,
) {
  switch (protocol) {
    case "chat_completions":
      return kind === "results" ? part.role === "tool" : Array.isArray(part.tool_calls);
    case "responses":
      return part.type === (kind === "results" ? "function_call_output" : "function_call");
    case "anthropic":
      return part.type === (kind === "results" ? "tool_result" : "tool_use");
    case "gemini":
      return (kind === "results" ? "functionResponse" : "functionCall") in part;
  }
}

/** Posts the paired body of a call and its result with the results (or calls) taken out; the status. */
async function postWithout(protocol: (typeof protocols)[number], kind: "results" | "calls"): Promise<number> {
  const adapter = protocolAdapter({ protocol, model: "test-model", baseUrl: fake().baseUrl }, "k");
  const spec = adapter.buildHttpRequest({
    items: [
      userMessage("a"),
      toolCall("call_1", "read_file", "{}"),
      toolResult("call_1", "content"),
      userMessage("b"),
    ],
    tools: [tool],
    config: {},
  });
  const body = JSON.parse(spec.body) as Record<string, unknown>;
  const strip = (list: unknown) =>
    (list as Record<string, unknown>[]).filter((part) => !isPart(protocol, kind, part));
  if (protocol === "chat_completions") body.messages = strip(body.messages);
  else if (protocol === "responses") body.input = strip(body.input);
  else {
    const key = protocol === "anthropic" ? "messages" : "contents";
    const inner = protocol === "anthropic" ? "content" : "parts";
    body[key] = (body[key] as Record<string, unknown>[])
      .map((message) => ({ ...message, [inner]: strip(message[inner]) }))
      .filter((message) => (message[inner] as unknown[]).length > 0);
  }
  const response = await fetch(spec.url, {
    method: "POST",
    headers: spec.headers,
    body: JSON.stringify(body),
  });
  await response.text();
  return response.status;
}

describe.each(protocols)("the fake speaking %s", (protocol) => {
  const call = toolCall("call_1", "read_file", "{}");
  const result = toolResult("call_1", "content");

  it("takes a call followed by its result", async () => {
    const { error } = await send(protocol, [userMessage("a"), call, result, userMessage("b")]);
    expect(error).toBeUndefined();
  });

  it("refuses a call whose result is missing", async () => {
    expect(await postWithout(protocol, "results")).toBe(400);
  });

  it("refuses a result whose call is missing", async () => {
    expect(await postWithout(protocol, "calls")).toBe(400);
  });
});

it("refuses an Anthropic thinking block edited after it was signed (the client then leaves it out)", async () => {
  fake().queue(thinkingReply("the real thought", text("hi"), { signature: "sig-real" }));
  await collect(clientFor("anthropic", fake().baseUrl), { items: [userMessage("a")], tools: [], config: {} });
  const origin = { provider: "anthropic", model: "test-model" };
  const edited = reasoning("an edited thought", { signature: "sig-real", origin });
  const kept = reasoning("the real thought", { signature: "sig-real", origin });
  const assistant: Item = { type: "message", role: "assistant", content: [{ type: "text", text: "hi" }] };
  const sentBefore = fake().requests.length;
  const bad = await send("anthropic", [userMessage("a"), edited, assistant, userMessage("b")]);
  // The fake refused the edited block; the client sent the request once more without it.
  const [refused, resent] = fake().requests.slice(sentBefore);
  expect(refused?.rawBody).toContain("an edited thought");
  expect(resent?.rawBody).not.toContain("an edited thought");
  const retry = bad.events.find((event) => event.type === "retry");
  expect(retry?.type === "retry" && retry.retry.reason).toContain("Invalid `signature` in `thinking` block");
  expect(bad.error).toBeUndefined();
  const good = await send("anthropic", [userMessage("a"), kept, assistant, userMessage("b")]);
  expect(good.error).toBeUndefined();
  expect(good.events.some((event) => event.type === "retry")).toBe(false);
});
