/**
 * A turn's run alone, against a small port on real SQLite storage and a scripted model: what it
 * publishes and when (a run held until its start is durable), what it commits (each step through
 * the mailbox, the last answer held for the turn's end), a tool call that waits for its answer,
 * and how it ends without a provider.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalGate } from "../../../src/daemon/approval/approval-gate.js";
import { turnConversation } from "../../../src/daemon/turn/turn-conversation.js";
import { TurnRun } from "../../../src/daemon/turn/turn-run.js";
import type { StreamEvent } from "../../../src/model/events.js";
import {
  textBlockStart,
  textBlockStop,
  textDelta,
  toolInputDelta,
  toolUseStart,
  toolUseStop,
  usageEvent,
} from "../../../src/model/events.js";
import { userMessage } from "../../../src/model/items.js";
import type { LlmClient } from "../../../src/model/llm-client.js";
import type { ToolDefinition } from "../../../src/model/tools.js";
import { MockLlmClient, type MockStep, mockDelay } from "../../support/mock-llm-client.js";
import { type TestPort, testPort } from "../session/test-port.js";

/** An answer whose sender was not recorded (the gate alone, no HTTP request). */
const noSender = { principal: null, address: null };

function answer(text: string): StreamEvent[] {
  return [
    textBlockStart(0),
    textDelta(0, text.slice(0, 3)),
    textDelta(0, text.slice(3)),
    textBlockStop(0),
    usageEvent(12, 3),
  ];
}

/** A `write_file` the model may call; `runs` records each call it ran. */
function writeFileTool(runs: string[]): ToolDefinition {
  return () => ({
    meta: { name: "write_file", description: "writes a file", input_schema: { type: "object" } },
    tool: {
      execute: async (input) => {
        runs.push(input);
        return "written";
      },
    },
  });
}

describe("a turn's run", () => {
  let env: TestPort | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  /** A port over a session whose history holds one prompt, and a run of turn `turn-1` on it. */
  async function setUp(
    client: () => LlmClient | null,
    options: { held?: boolean; tools?: ToolDefinition[] } = {},
  ) {
    env = await testPort(client, [{ kind: "user_input", ts: 1, item: userMessage("Hi"), turn_id: "turn-1" }]);
    const { tools } = options;
    if (tools !== undefined) env.services.tools = async () => tools;
    const gate = new ApprovalGate(env.port);
    const session = (await env.storage.getSession(env.sessionId))!;
    const run: TurnRun = new TurnRun(env.port, {
      id: "turn-1",
      inputIds: [],
      services: env.services,
      session,
      conversation: turnConversation(env.port, gate, "turn-1", () => run),
      gate,
      ...(options.held === undefined ? {} : { held: options.held }),
    });
    return { env, gate, run };
  }

  it("streams its answer's deltas and holds the answer for the turn's end, without entering the mailbox", async () => {
    const client = new MockLlmClient(answer("Hello"));
    const { env, run } = await setUp(() => client);
    const ending = await run.start();
    expect(ending).toMatchObject({ state: "completed", requestCount: 1, usage: { input_tokens: 12 } });
    expect(client.requests[0]?.items).toEqual([userMessage("Hi")]);
    expect(env.kinds()).toEqual(["text", "text", "usage"]);
    expect(env.port.log.holding).toBe(true);
    expect(env.serialized).toBe(0);
  });

  it("publishes nothing while held, then everything it held, in order, once released", async () => {
    const client = new MockLlmClient(answer("Hello"));
    const { env, run } = await setUp(() => client, { held: true });
    const ending = await run.start();
    expect(ending.state).toBe("completed");
    expect(client.calls).toBe(1);
    expect(env.kinds()).toEqual([]);
    run.release();
    expect(env.kinds()).toEqual(["text", "text", "usage"]);
  });

  it("publishes nothing at all when stopped before it was released", async () => {
    const steps: MockStep[] = [mockDelay(5_000), ...answer("Hello")];
    const { env, run } = await setUp(() => new MockLlmClient(steps), { held: true });
    const started = run.start();
    run.abort("storage", "disk full");
    const ending = await started;
    expect(ending).toMatchObject({ state: "failed", error: { code: "storage_unavailable" } });
    run.release();
    expect(env.kinds()).toEqual([]);
  });

  it("fails at once without a provider, asking no model", async () => {
    const { env, run } = await setUp(() => null);
    const ending = await run.start();
    expect(ending).toMatchObject({ state: "failed", error: { code: "provider_unconfigured" } });
    expect(env.kinds()).toEqual([]);
  });

  it("runs a tool call the policy asks about only once its answer is committed, and commits its result before asking the model again", async () => {
    const runs: string[] = [];
    const client = MockLlmClient.withResponses([
      [toolUseStart(0, "call-1", "write_file"), toolInputDelta(0, '{"path":"a.txt"}'), toolUseStop(0)],
      answer("Done"),
    ]);
    const { env, gate, run } = await setUp(() => client, { tools: [writeFileTool(runs)] });
    const ending = run.start();
    for (let i = 0; i < 100 && !gate.waiting; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(gate.pending().map((request) => request.call_id)).toEqual(["call-1"]);
    expect(runs).toEqual([]);
    await env.port.serialize(() => gate.answer("call-1", { decision: "allow" }, noSender));
    expect(await ending).toMatchObject({ state: "completed", requestCount: 2 });
    expect(runs).toEqual(['{"path":"a.txt"}']);
    const kinds = (await env.storage.readLog(env.sessionId)).map(({ entry }) => entry.kind);
    expect(kinds).toEqual([
      "session_start",
      "user_input",
      "assistant_items",
      "approval_requested",
      "approval_resolved",
      "tool_results",
    ]);
    // The call with its request, the answer, the result; the last answer is held.
    expect(env.serialized).toBe(3);
    expect(client.requests[1]?.items.at(-1)).toMatchObject({ type: "tool_result", call_id: "call-1" });
  });
});
