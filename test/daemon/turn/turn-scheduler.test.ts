/**
 * What a plain turn commits, in process on real SQLite storage: the input of an idle session
 * is admitted in its turn's start commit, and the model's last answer is held and committed
 * with the turn's end; anything appended in between commits the held answer first, in order.
 */

import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import type { InputReceipt } from "../../../src/api/inputs.js";
import type { SessionActor } from "../../../src/daemon/actor/session-actor.js";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import { InputQueue } from "../../../src/daemon/session/input-queue.js";
import type { TurnScheduler } from "../../../src/daemon/turn/turn-scheduler.js";
import { textBlockStart, textBlockStop, textDelta, usageEvent } from "../../../src/model/events.js";
import { unnamedSource } from "../../support/input-source.js";
import { MockLlmClient, mockDelay } from "../../support/mock-llm-client.js";
import { createTestSession, type TestServices, testServices } from "../session/session-services.js";
import { type TestPort, testPort } from "../session/test-port.js";
import { testScheduler } from "./test-scheduler.js";

/** Message kinds and turn ends the actor's feed published since `after`, in order. */
function eventsSince(actor: SessionActor, after: number): string[] {
  const read = actor.feed.read({ generation: actor.feed.generation, sequence: after });
  if (read.kind !== "events") throw new Error(`the feed cannot replay: ${read.reason}`);
  return read.events.flatMap((encoded) => {
    const event = JSON.parse(encoded.json) as { type: string; data: { entry?: { kind: string } } };
    if (event.type === "message") return [`message:${event.data.entry?.kind}`];
    return event.type === "turn_completed" ? ["turn_completed"] : [];
  });
}

/** Wait until the actor has no turn and no input waiting. */
async function settled(actor: SessionActor): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (!actor.busy && (await actor.snapshot(0)).pending_inputs.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("the session did not settle");
}

describe("a plain turn's commits", () => {
  let env: TestServices | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  function answering(text: string): TestServices {
    env = testServices(() => new MockLlmClient([textBlockStart(0), textDelta(0, text), textBlockStop(0)]));
    return env;
  }

  it("costs two transactions: the admission with the turn's start, the answer with its end", async () => {
    const { services, storage, workspace } = answering("Hello");
    const registry = new SessionRegistry(services);
    const id = await createTestSession(registry, workspace);
    const actor = await registry.get(id);
    const before = storage.commitStats().transactions;
    const inputId = uuidv7();
    const receipt = await actor.submit(inputId, { kind: "message", text: "Hi" }, unnamedSource);
    expect(receipt).toMatchObject({ id: inputId, acceptance_order: 1, delivery: "pending", turn: null });
    await settled(actor);
    expect(storage.commitStats().transactions - before).toBe(2);
    const kinds = (await storage.readLog(id)).map(({ entry }) => entry.kind);
    expect(kinds).toEqual(["session_start", "user_input", "assistant_items", "turn_end", "run_outcome"]);
    expect(await storage.getReceipt(id, inputId)).toMatchObject({
      delivery: "committed",
      transcript_position: 1,
      turn: { state: "completed" },
    });
  });

  it("keeps the held answer out of the log until the turn ends, and commits it first when something else appends", async () => {
    // The answer comes once the turn's start is durable and announced (its events are not held).
    env = testServices(
      () =>
        new MockLlmClient([
          mockDelay(50),
          textBlockStart(0),
          textDelta(0, "Hello"),
          textBlockStop(0),
          usageEvent(10, 5),
        ]),
    );
    const { services, storage, workspace } = env;
    const registry = new SessionRegistry(services);
    const id = await createTestSession(registry, workspace);
    const actor = await registry.get(id);
    const from = actor.cursor.sequence;
    const kinds = async (log: Promise<Array<{ entry: { kind: string } }>>) =>
      (await log).map(({ entry }) => entry.kind);
    // The request's usage event goes out after its answer was held and before the turn's end
    // is queued: a settings change asked for then (synchronously) lands between the two.
    let logThen: Promise<Array<{ entry: { kind: string } }>> | null = null;
    let changed: Promise<unknown> | null = null;
    let seen = from;
    const watcher = actor.feed.watch(() => {
      const read = actor.feed.read({ generation: actor.feed.generation, sequence: seen });
      if (read.kind !== "events") return;
      seen = read.cursor;
      if (changed === null && read.events.some((event) => event.json.startsWith('{"type":"usage"'))) {
        logThen = storage.readLog(id);
        changed = actor.changeSettings({ model: "other-model" });
      }
      watcher.consumed(seen);
    });
    const before = storage.commitStats().transactions;
    await actor.submit(uuidv7(), { kind: "message", text: "Hi" }, unnamedSource);
    await settled(actor);
    watcher.close();
    expect(changed).not.toBeNull();
    await changed;
    expect(await kinds(logThen!)).toEqual(["session_start", "user_input"]);
    // The start, the answer with the settings change, the end.
    expect(storage.commitStats().transactions - before).toBe(3);
    expect(await kinds(storage.readLog(id))).toEqual([
      "session_start",
      "user_input",
      "assistant_items",
      "config_changed",
      "turn_end",
      "run_outcome",
    ]);
    expect(eventsSince(actor, from)).toEqual(["message:user", "message:assistant", "turn_completed"]);
  });

  it("announces each input's receipt at its turn's start and end exactly as the store then holds it", async () => {
    const { services, storage, workspace } = answering("Hello");
    const registry = new SessionRegistry(services);
    const id = await createTestSession(registry, workspace);
    const actor = await registry.get(id);
    const from = actor.cursor.sequence;
    // The first starts its turn in its admission's commit; the second waits and is taken by
    // the next turn from the queue: both ways of starting a turn announce receipts.
    const [first, second] = [uuidv7(), uuidv7()];
    await Promise.all([
      actor.submit(first, { kind: "message", text: "one" }, unnamedSource),
      actor.submit(second, { kind: "message", text: "two" }, unnamedSource),
    ]);
    await settled(actor);
    const read = actor.feed.read({ generation: actor.feed.generation, sequence: from });
    if (read.kind !== "events") throw new Error(`the feed cannot replay: ${read.reason}`);
    const announced = read.events
      .map((encoded) => JSON.parse(encoded.json) as { type: string; data: { input?: InputReceipt } })
      .flatMap((event) =>
        event.type === "input" && event.data.input !== undefined ? [event.data.input] : [],
      );
    for (const inputId of [first, second]) {
      const receipts = announced.filter((receipt) => receipt.id === inputId);
      const stored = await storage.getReceipt(id, inputId);
      expect(stored?.turn?.state).toBe("completed");
      expect(receipts.map((receipt) => [receipt.delivery, receipt.turn?.state ?? null])).toEqual([
        ["pending", null],
        ["committed", "running"],
        ["committed", "completed"],
      ]);
      expect(receipts[1]).toEqual({
        ...stored,
        turn: { ...stored!.turn!, state: "running", ended_at: null },
      });
      expect(receipts[2]).toEqual(stored);
    }
  });
});

describe("a plain turn in the mailbox", () => {
  let env: TestPort | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  /** A scheduler on a small port (no actor), with the session's other parts. */
  async function scheduler(client: () => MockLlmClient): Promise<{ env: TestPort; turns: TurnScheduler }> {
    env = await testPort(client);
    return { env, turns: testScheduler(env) };
  }

  it("enters the mailbox once per step it serialises: its admission with its start, and its end", async () => {
    const { env, turns } = await scheduler(
      () => new MockLlmClient([textBlockStart(0), textDelta(0, "Hello"), textBlockStop(0)]),
    );
    const inputId = uuidv7();
    // As the actor does: the admission runs in the mailbox.
    const receipt = await env.port.serialize(() =>
      turns.admitAndStart(inputId, { kind: "message", text: "Hi" }, unnamedSource),
    );
    expect(receipt).toMatchObject({ id: inputId, delivery: "pending" });
    await turns.turnSettled();
    await env.port.serialize(() => undefined);
    // The admission's task, the end's task, and the one just queued to wait for both.
    expect(env.serialized).toBe(3);
    expect((await env.storage.readLog(env.sessionId)).map(({ entry }) => entry.kind)).toEqual([
      "session_start",
      "user_input",
      "assistant_items",
      "turn_end",
      "run_outcome",
    ]);
    expect(env.kinds().filter((kind) => kind === "status")).toHaveLength(2);
  });

  it("starts the next turn for a queued input in its predecessor's end, without another mailbox entry", async () => {
    const { env, turns } = await scheduler(() =>
      MockLlmClient.withResponses([
        [textBlockStart(0), textDelta(0, "one"), textBlockStop(0)],
        [textBlockStart(0), textDelta(0, "two"), textBlockStop(0)],
      ]),
    );
    const inputs = new InputQueue(env.port, env.storage);
    await env.port.serialize(async () => {
      await turns.admitAndStart(uuidv7(), { kind: "message", text: "first" }, unnamedSource);
      await inputs.admit(uuidv7(), { kind: "message", text: "second" }, unnamedSource);
    });
    for (let i = 0; i < 200 && (turns.busy || (await inputs.pending()).length > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await env.port.serialize(() => undefined);
    // The admissions' task, the first turn's end (which starts the second), the second's end, this one.
    expect(env.serialized).toBe(4);
    const kinds = (await env.storage.readLog(env.sessionId)).map(({ entry }) => entry.kind);
    expect(kinds.filter((kind) => kind === "turn_end")).toHaveLength(2);
  });
});
