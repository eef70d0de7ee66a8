/**
 * The compactor alone, against a small port on real SQLite storage and a scripted model: a
 * compaction asked for, one a turn needs before its request, and a summary that would not make
 * the context smaller.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SessionCompactor } from "../../../src/daemon/compaction/compaction.js";
import type { BoundClient } from "../../../src/daemon/session/session-services.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { textBlockStart, textBlockStop, textDelta, usageEvent } from "../../../src/model/events.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { modelLimits } from "../../../src/providers/model-limits.js";
import { MockLlmClient } from "../../support/mock-llm-client.js";
import { type TestPort, testPort } from "../session/test-port.js";

/** Six turns of history, each a long question and a long answer. */
function longHistory(): LogEntry[] {
  return Array.from({ length: 6 }, (_, turn): LogEntry[] => [
    { kind: "user_input", ts: turn, item: userMessage(`question ${turn}: ${"why ".repeat(400)}`) },
    {
      kind: "assistant_items",
      ts: turn,
      items: [assistantMessage(`answer ${turn}: ${"because ".repeat(400)}`)],
    },
    { kind: "turn_end", ts: turn, turn_count: turn + 1 },
  ]).flat();
}

/** A model that answers each summary request (a long history takes several) with `summary`. */
function summarizing(summary: string): MockLlmClient {
  const answer = [textBlockStart(0), textDelta(0, summary), textBlockStop(0), usageEvent(100, 10)];
  return MockLlmClient.withResponses(Array.from({ length: 10 }, () => answer));
}

function bound(client: MockLlmClient, contextWindow: number): BoundClient {
  return {
    client,
    profileName: "test",
    model: "test-model",
    requestConfig: {},
    limits: modelLimits({ protocol: "chat_completions", model: "test-model", contextWindow }),
  };
}

describe("the compactor", () => {
  let env: TestPort | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  async function setUp(): Promise<{ env: TestPort; compactor: SessionCompactor }> {
    env = await testPort(() => null, longHistory());
    return { env, compactor: new SessionCompactor(env.port, () => null) };
  }

  it("compacts when asked: the model summarizes the older turns and one entry is appended through the mailbox", async () => {
    const { env, compactor } = await setUp();
    const client = bound(summarizing("The user asked why six times; the answers said because."), 100_000);
    const plan = compactor.plan(client);
    expect(plan).not.toBeNull();
    const before = env.serialized;
    const done = new Promise<void>((resolve) => {
      compactor.startManual(client, plan!, resolve);
    });
    expect(compactor.running).toBe(true);
    await done;
    expect(compactor.running).toBe(false);
    expect(env.serialized - before).toBe(1);
    const last = (await env.storage.readLog(env.sessionId)).at(-1)!.entry;
    expect(last).toMatchObject({
      kind: "compaction",
      trigger: "manual",
      summary: "The user asked why six times; the answers said because.",
      first_kept_position: plan!.firstKeptPosition,
    });
    expect(env.kinds().filter((kind) => kind.startsWith("compaction"))).toEqual([
      "compaction_started",
      "compaction_completed",
    ]);
    expect(compactor.account.size(env.port.log.state).tokens).toBeLessThan(
      (last as { before_tokens: number }).before_tokens,
    );
  });

  it("writes nothing when the summary would not make the context smaller, and says why", async () => {
    const { env, compactor } = await setUp();
    const client = bound(summarizing("so ".repeat(20_000)), 100_000);
    const positions = env.port.log.position;
    await new Promise<void>((resolve) => {
      compactor.startManual(client, compactor.plan(client)!, resolve);
    });
    expect(env.port.log.position).toBe(positions);
    const failed = env.events.find((event) => event.type === "compaction_failed");
    expect(failed?.data).toMatchObject({
      trigger: "manual",
      message: expect.stringMatching(/would not make the context smaller/),
    });
  });

  it("compacts before a turn's request once the context passes the threshold, and sends the compacted history", async () => {
    const { env, compactor } = await setUp();
    const client = bound(summarizing("Six questions, six answers."), 8_000);
    const hooks = compactor.forTurn("turn-1", client, null, []);
    expect(hooks.due()).toBe(true);
    const sent = await hooks.beforeRequest(env.port.log.state.history, new AbortController().signal);
    expect(sent).toEqual(env.port.log.state.history);
    expect(sent!.length).toBeLessThan(18);
    expect(env.port.log.state.last_compaction).toMatchObject({ position: env.port.log.position });
    expect(hooks.due()).toBe(false);
  });
});
