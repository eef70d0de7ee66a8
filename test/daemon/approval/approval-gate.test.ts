/**
 * The approval gate alone, against a small port on real SQLite storage: which calls are asked,
 * how a waiting call meets its answer (through the log, whoever commits it), what clients hear,
 * and answers given twice, in conflict or for calls that wait for nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { ApprovalGate, type TurnPolicy } from "../../../src/daemon/approval/approval-gate.js";
import { ApprovalConflictError, ApprovalUnknownError } from "../../../src/daemon/errors.js";
import { type ToolCallItem, toolCall } from "../../../src/model/items.js";
import type { BeforeToolCallAction } from "../../../src/worker/index.js";
import { type TestPort, testPort } from "../session/test-port.js";

/** An answer whose sender was not recorded (the gate alone, no HTTP request). */
const noSender = { principal: null, address: null };

/** Whether `promise` is still pending after everything queued so far has run. */
async function pending(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  await new Promise((resolve) => setTimeout(resolve, 20));
  return !settled;
}

describe("the approval gate", () => {
  let env: TestPort | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  async function setUp(): Promise<{ env: TestPort; gate: ApprovalGate; policy: TurnPolicy }> {
    env = await testPort();
    const gate = new ApprovalGate(env.port);
    const policy: TurnPolicy = {
      workspace: env.workspace,
      config: {
        default: "ask",
        rules: [
          { tool: "read_file", action: "allow" },
          { tool: "run_command", pattern: "rm *", action: "deny" },
        ],
      },
      tools: new Set(["read_file", "write_file", "run_command", "ask_user"]),
    };
    return { env, gate, policy };
  }

  /** Commit the model's calls with the requests the gate asks for, as a turn's step does. */
  async function respond(env: TestPort, gate: ApprovalGate, policy: TurnPolicy, calls: ToolCallItem[]) {
    await env.port.serialize(async () => {
      const requests = gate.requestEntries(calls, policy, "turn-1");
      await env.port.log.commit([
        { kind: "assistant_items", ts: 1, items: calls, turn_id: "turn-1" },
        ...requests,
      ]);
    });
  }

  it("asks about the calls the policy asks about, in the same commit as the calls, and tells the clients", async () => {
    const { env, gate, policy } = await setUp();
    const calls = [
      toolCall("c1", "read_file", '{"path":"a.txt"}'),
      toolCall("c2", "write_file", '{"path":"a.txt","content":"x"}'),
      toolCall("c3", "run_command", '{"command":"rm -rf x"}'),
      toolCall("c4", "unknown_tool", "{}"),
      toolCall("c5", "write_file", "not json"),
    ];
    expect(gate.requestEntries(calls, policy, "turn-1").map((entry) => entry.kind)).toEqual([
      "approval_requested",
    ]);
    await respond(env, gate, policy, calls);
    expect(gate.waiting).toBe(true);
    expect(gate.pending().map((request) => request.call_id)).toEqual(["c2"]);
    expect(env.kinds()).toEqual([
      "message:tool_call",
      "message:tool_call",
      "message:tool_call",
      "message:tool_call",
      "message:tool_call",
      "committed",
      "approval_requested",
    ]);
  });

  it("lets a waiting call go on only once its answer is committed, after the clients heard of it", async () => {
    const { env, gate, policy } = await setUp();
    const call = toolCall("c1", "write_file", '{"path":"a.txt","content":"x"}');
    await respond(env, gate, policy, [call]);
    const order: string[] = [];
    const decided = gate.beforeToolCall(call, policy, "turn-1").then((action: BeforeToolCallAction) => {
      order.push(`decided:${env!.kinds().at(-1)}`);
      return action;
    });
    expect(await pending(decided)).toBe(true);
    const record = await env.port.serialize(() => gate.answer("c1", { decision: "allow" }, noSender));
    expect(record).toMatchObject({ call_id: "c1", decision: "allow", by: "client" });
    expect(await decided).toEqual({ action: "continue" });
    expect(order).toEqual(["decided:approval_resolved"]);
    expect(gate.waiting).toBe(false);
  });

  it("logs the request of a call judged at run time before the call waits, and a denial is its result", async () => {
    const { env, gate, policy } = await setUp();
    const call = toolCall("c9", "write_file", '{"path":"b.txt","content":"y"}');
    const decided = gate.beforeToolCall(call, policy, "turn-1");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(gate.pending().map((request) => request.call_id)).toEqual(["c9"]);
    await env.port.serialize(() => gate.answer("c9", { decision: "deny", message: "not now" }, noSender));
    expect(await decided).toEqual({
      action: "result",
      result: {
        output: "The user denied this tool call; it was not run. Their message: not now",
        is_error: true,
      },
    });
  });

  it("wakes a waiting call with any answer the log gets, such as a turn's end denying what waits", async () => {
    const { env, gate, policy } = await setUp();
    const call = toolCall("c1", "write_file", '{"path":"a.txt","content":"x"}');
    await respond(env, gate, policy, [call]);
    const decided = gate.beforeToolCall(call, policy, "turn-1");
    await env.port.serialize(() => env!.port.log.commit(gate.closingEntries("turn_end", "turn-1")));
    const action = await decided;
    expect(action).toMatchObject({ action: "result", result: { is_error: true } });
    expect(env.kinds().slice(-1)).toEqual(["approval_resolved"]);
  });

  it("stops waiting for a call whose turn gave up on it", async () => {
    const { env, gate, policy } = await setUp();
    const call = toolCall("c1", "write_file", '{"path":"a.txt","content":"x"}');
    await respond(env, gate, policy, [call]);
    const turn = new AbortController();
    const decided = gate.beforeToolCall(call, policy, "turn-1", turn.signal);
    turn.abort();
    await env.port.serialize(() => gate.answer("c1", { decision: "allow" }, noSender));
    // The answer is logged for the next turn; the aborted one is not woken.
    expect(await pending(decided)).toBe(true);
    expect(await gate.beforeToolCall(call, policy, "turn-2")).toEqual({ action: "continue" });
  });

  it("answers the same decision again with the recorded one, refuses another, and knows no answer for a call that waits for nothing", async () => {
    const { env, gate, policy } = await setUp();
    await respond(env, gate, policy, [toolCall("c1", "write_file", '{"path":"a.txt","content":"x"}')]);
    const first = await env.port.serialize(() => gate.answer("c1", { decision: "deny" }, noSender));
    const again = await env.port.serialize(() => gate.answer("c1", { decision: "deny" }, noSender));
    expect(again).toEqual(first);
    await expect(
      env.port.serialize(() => gate.answer("c1", { decision: "allow" }, noSender)),
    ).rejects.toBeInstanceOf(ApprovalConflictError);
    await expect(
      env.port.serialize(() => gate.answer("nope", { decision: "allow" }, noSender)),
    ).rejects.toBeInstanceOf(ApprovalUnknownError);
    expect(env.kinds().filter((kind) => kind === "approval_resolved")).toHaveLength(1);
  });

  it("answers the other waiting calls a remembered answer covers, in the same commit", async () => {
    const { env, gate, policy } = await setUp();
    await respond(env, gate, policy, [
      toolCall("c1", "write_file", '{"path":"a.txt","content":"x"}'),
      toolCall("c2", "write_file", '{"path":"b.txt","content":"y"}'),
      toolCall("c3", "run_command", '{"command":"make"}'),
    ]);
    await env.port.serialize(() => gate.answer("c1", { decision: "allow", remember: true }, noSender));
    expect(gate.pending().map((request) => request.call_id)).toEqual(["c3"]);
    const resolved = env.events.filter((event) => event.type === "approval_resolved");
    expect(resolved.map((event) => (event.data as { call_id: string; by: string }).by)).toEqual([
      "client",
      "rule",
    ]);
  });
});
