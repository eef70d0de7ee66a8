/**
 * What a plain turn commits, in process on real SQLite storage: the input of an idle session
 * is admitted in its turn's start commit, and the model's last answer is held and committed
 * with the turn's end; anything appended in between commits the held answer first, in order.
 */
import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionActor } from "../../../src/daemon/session/session-actor.js";
import { SessionRegistry } from "../../../src/daemon/session/session-registry.js";
import type { CheckpointPhase } from "../../../src/daemon/session/session-services.js";
import { textBlockStart, textBlockStop, textDelta } from "../../../src/model/events.js";
import { MockLlmClient } from "../../support/mock-llm-client.js";
import { createTestSession, type TestServices, testServices } from "./session-services.js";

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

/** Wait until `check` holds (polling). */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error("timed out");
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
    const receipt = await actor.submit(inputId, { kind: "message", text: "Hi" }, null);
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
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    let answered = false;
    const { services, storage, workspace } = answering("Hello");
    services.checkpoint = async (_session, _runId, phase: CheckpointPhase) => {
      // The turn's end waits for its last checkpoint, which comes after the answer: hold it.
      if (phase !== "after-unchanged") return;
      answered = true;
      await opened;
    };
    const registry = new SessionRegistry(services);
    const id = await createTestSession(registry, workspace);
    const actor = await registry.get(id);
    const from = actor.cursor.sequence;
    await actor.submit(uuidv7(), { kind: "message", text: "Hi" }, null);
    await until(() => answered);
    const kinds = async () => (await storage.readLog(id)).map(({ entry }) => entry.kind);
    expect(await kinds()).toEqual(["session_start", "user_input"]);
    expect(eventsSince(actor, from)).toEqual(["message:user"]);

    const before = storage.commitStats().transactions;
    await actor.changeSettings({ model: "other-model" });
    expect(storage.commitStats().transactions - before).toBe(1);
    expect(await kinds()).toEqual(["session_start", "user_input", "assistant_items", "config_changed"]);
    expect(eventsSince(actor, from)).toEqual(["message:user", "message:assistant"]);

    open();
    await settled(actor);
    expect(await kinds()).toEqual([
      "session_start",
      "user_input",
      "assistant_items",
      "config_changed",
      "turn_end",
      "run_outcome",
    ]);
    expect(eventsSince(actor, from)).toEqual(["message:user", "message:assistant", "turn_completed"]);
  });
});
