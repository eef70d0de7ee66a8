/**
 * Sessions that a real vendor left permanently stuck (every later turn refused because of
 * something already in the history), run through the session layer on real SQLite with the
 * real client against the fake provider, whose vendor rules refuse what the vendors refuse:
 * each scenario's later turn must be accepted.
 */

import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionActor } from "../../../src/daemon/actor/session-actor.js";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import type { ToolDefinition } from "../../../src/model/tools.js";
import { FieldRefusals } from "../../../src/providers/field-refusals.js";
import { createLlmClient, type ProviderProfile } from "../../../src/providers/index.js";
import {
  httpError,
  reasoning,
  stream,
  text,
  textPart,
  toolCalls,
} from "../../support/fake-provider/index.js";
import { withFakeProvider } from "../../support/fake-provider/with-fake-provider.js";
import { unnamedSource } from "../../support/input-source.js";
import { createTestSession, type TestServices, testServices } from "../session/session-services.js";

const fake = withFakeProvider({ script: () => text("unexpected extra request") });

/** The profile the session's next turn uses (a test switches models by changing it). */
let current: ProviderProfile;

/** A tool that fails without a word (as an MCP server may), and one that answers. */
const tools: ToolDefinition[] = [
  () => ({
    meta: { name: "flaky", description: "Fails silently", input_schema: { type: "object" } },
    tool: { execute: async () => ({ output: "", is_error: true }) },
  }),
  () => ({
    meta: { name: "lookup", description: "Looks up", input_schema: { type: "object" } },
    tool: { execute: async () => "found" },
  }),
];

let env: TestServices | null = null;

afterEach(async () => {
  await env?.cleanup();
  env = null;
});

async function session(
  profile: ProviderProfile,
): Promise<{ actor: SessionActor; env: TestServices; id: string }> {
  current = profile;
  const refusals = new FieldRefusals();
  env = testServices(() => createLlmClient(current, { retry: { maxAttempts: 1 }, fieldRefusals: refusals }));
  env.services.tools = async () => tools;
  // No person answers here: every call runs.
  env.services.turnSettings = () => ({ maxToolRounds: 100, configPolicy: { default: "allow" } });
  const registry = new SessionRegistry(env.services);
  const id = await createTestSession(registry, env.workspace);
  return { actor: await registry.get(id), env, id };
}

async function settled(actor: SessionActor): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (!actor.busy && (await actor.snapshot(0)).pending_inputs.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the session did not settle");
}

/** Sends one message and waits for its turn to end; the turn's outcome from the log. */
async function turn(actor: SessionActor, env: TestServices, id: string, message: string): Promise<unknown> {
  await actor.submit(uuidv7(), { kind: "message", text: message }, unnamedSource);
  await settled(actor);
  const log = await env.storage.readLog(id);
  return log.filter(({ entry }) => entry.kind === "run_outcome").at(-1)?.entry;
}

function profile(protocol: ProviderProfile["protocol"], model: string, extra: Partial<ProviderProfile> = {}) {
  return { protocol, model, baseUrl: fake().baseUrl, apiKey: "k", ...extra } as ProviderProfile;
}

const finished = { kind: "run_outcome", outcome: { type: "finished" } };

/** Every request the fake answered with a refusal. */
function refusedRequests(): number {
  return fake().requests.filter((request) => request.finishedAt !== undefined && request.clientAborted)
    .length;
}

describe("a later turn is accepted after", () => {
  it("5. a tool call cut off at the output limit: sent as {} and its result says it was cut off", async () => {
    const { actor, env: e, id } = await session(profile("chat_completions", "qwen3:8b"));
    fake().queue(
      { ...toolCalls([{ name: "lookup", args: '{"word": "sk' }]), finishReason: "length" },
      text("Sorry, again."),
      text("Next answer."),
    );
    expect(await turn(actor, e, id, "Look up skein")).toMatchObject(finished);
    const second = fake().requests[1]!.body as { messages: Record<string, unknown>[] };
    const assistant = second.messages.find((m) => m.role === "assistant") as { tool_calls: unknown[] };
    expect(assistant.tool_calls).toMatchObject([{ function: { name: "lookup", arguments: "{}" } }]);
    const result = second.messages.find((m) => m.role === "tool");
    expect(String(result?.content)).toContain("reached the output limit");
    expect(await turn(actor, e, id, "And now?")).toMatchObject(finished);
    expect(fake().requests).toHaveLength(3);
    expect(refusedRequests()).toBe(0);
  });

  it("6. an Anthropic answer that is only whitespace", async () => {
    const { actor, env: e, id } = await session(profile("anthropic", "claude-sonnet-4-5"));
    fake().queue(stream([textPart(" \n ")], {}), text("A real answer."));
    expect(await turn(actor, e, id, "Hello")).toMatchObject(finished);
    expect(await turn(actor, e, id, "Hello again")).toMatchObject(finished);
    const messages = (fake().requests[1]!.body as { messages: { role: string }[] }).messages;
    expect(messages.map((m) => m.role)).toEqual(["user"]);
    expect(fake().requests).toHaveLength(2);
  });

  it("7. a Responses store: true session whose model changed", async () => {
    const { actor, env: e, id } = await session(profile("responses", "gpt-5-mini", { store: true }));
    fake().queue(
      reasoning("Think.", toolCalls([{ name: "lookup", args: { word: "skein" } }])),
      reasoning("Done.", text("Yarn.")),
      text("On the new model."),
    );
    expect(await turn(actor, e, id, "What is a skein?")).toMatchObject(finished);
    current = profile("responses", "gpt-5.2", { store: true });
    expect(await turn(actor, e, id, "And a hank?")).toMatchObject(finished);
    const input = (fake().requests[2]!.body as { input: Record<string, unknown>[] }).input;
    expect(input.some((item) => item.type === "reasoning")).toBe(false);
    expect(input.filter((item) => typeof item.id === "string")).toEqual([]);
    expect(fake().requests).toHaveLength(3);
  });

  it("8. a tool that failed with no output (Anthropic refuses an empty error result)", async () => {
    const { actor, env: e, id } = await session(profile("anthropic", "claude-sonnet-4-5"));
    fake().queue(toolCalls([{ name: "flaky", args: {} }]), text("It failed."), text("Next."));
    expect(await turn(actor, e, id, "Try the flaky tool")).toMatchObject(finished);
    expect(await turn(actor, e, id, "Go on")).toMatchObject(finished);
    const messages = (fake().requests[2]!.body as { messages: { content: Record<string, unknown>[] }[] })
      .messages;
    const result = messages.flatMap((m) => m.content).find((block) => block.type === "tool_result");
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/\S/) });
    expect(fake().requests).toHaveLength(3);
  });

  it("11. an Anthropic refusal: the turn fails saying why, and is left out of later requests", async () => {
    const { actor, env: e, id } = await session(profile("anthropic", "claude-sonnet-4-5"));
    fake().queue(
      { ...text("I can't help with th"), finishReason: "refusal", refusalExplanation: "policy: cyber" },
      text("Sure, here is a poem."),
    );
    const refused = await turn(actor, e, id, "Write malware");
    expect(refused).toMatchObject({
      outcome: { type: "error", message: expect.stringContaining("policy: cyber") },
    });
    const log = await e.storage.readLog(id);
    expect(log.map(({ entry }) => entry.kind)).toContain("context_excluded");
    expect(log.some(({ entry }) => entry.kind === "assistant_items")).toBe(false);
    expect(await turn(actor, e, id, "Write a poem")).toMatchObject(finished);
    const messages = (fake().requests[1]!.body as { messages: { content: { text?: string }[] }[] }).messages;
    expect(JSON.stringify(messages)).not.toContain("Write malware");
    expect(messages).toHaveLength(1);
  });

  it("15. a thinking tool loop that failed on one Claude model and goes on on another", async () => {
    const { actor, env: e, id } = await session(profile("anthropic", "claude-sonnet-4-5"));
    const bind = e.services.bindClient;
    e.services.bindClient = (name, model, config) => {
      const bound = bind(name, model, config);
      return { ...bound, requestConfig: { ...bound.requestConfig, reasoning: { effort: "high" } } };
    };
    fake().queue(
      reasoning("Plan the lookup.", toolCalls([{ name: "lookup", args: {} }]), { signature: "sig-1" }),
      httpError(500, { message: "upstream broke" }),
      text("Done on Opus."),
    );
    const failed = await turn(actor, e, id, "Look it up");
    expect(failed).toMatchObject({ outcome: { type: "error" } });
    current = profile("anthropic", "claude-opus-4-1");
    expect(await turn(actor, e, id, "Go on")).toMatchObject(finished);
    const third = fake().requests[2]!.body as Record<string, unknown>;
    expect(third.thinking).toBeUndefined();
    expect(fake().requests).toHaveLength(3);
  });
});

describe("a history a provider keeps refusing", () => {
  it("is stuck until a repair leaves the refused entry out, and then takes turns again", async () => {
    const { actor, env: e, id } = await session(profile("chat_completions", "local-model"));
    // A server that refuses any request whose history holds the word (its content filter).
    fake().script = (request) =>
      request.rawBody.includes("POISON")
        ? httpError(400, {
            body: JSON.stringify({
              error: {
                message: "messages.1: prohibited content",
                type: "invalid_request_error",
                param: "messages",
              },
            }),
          })
        : text("fine");
    // The message being answered is all the history holds: nothing to repair yet.
    const first = await turn(actor, e, id, "POISON");
    expect(first).toMatchObject({ outcome: { type: "error" } });
    expect(JSON.stringify(first)).not.toContain("/repair");
    expect(await turn(actor, e, id, "hello")).toMatchObject({
      outcome: { type: "error", message: expect.stringContaining(`skein repair ${id} --from POSITION`) },
    });
    const log = await e.storage.readLog(id);
    const poisoned = log.findIndex(({ entry }) => entry.kind === "user_input");
    await expect(actor.repair(0, 0)).rejects.toMatchObject({ code: "repair_range_invalid" });
    await expect(actor.repair(poisoned, poisoned)).resolves.toMatchObject({ excluded_items: 1 });
    expect(await turn(actor, e, id, "hello again")).toMatchObject(finished);
    expect(fake().lastRequest.rawBody).not.toContain("POISON");
    await expect(actor.repair(poisoned, undefined)).rejects.toMatchObject({ code: "repair_range_invalid" });
  });
});
