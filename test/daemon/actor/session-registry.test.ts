import { v7 as uuidv7 } from "uuid";
import { afterEach, describe, expect, it } from "vitest";
import { SessionRegistry } from "../../../src/daemon/actor/session-registry.js";
import { DaemonDrainingError } from "../../../src/daemon/errors.js";
import { getReceipt } from "../../../src/daemon/storage/inputs-table.js";
import { insertSession } from "../../../src/daemon/storage/sessions-table.js";
import { getTurn } from "../../../src/daemon/storage/turns-table.js";
import { hashEntry } from "../../../src/log/entry-hash.js";
import { SessionNotFoundError } from "../../../src/log/errors.js";
import { textBlockStart, textBlockStop, textDelta } from "../../../src/model/events.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { builtinTools } from "../../../src/tools/builtin-tools.js";
import { unnamedSource } from "../../support/input-source.js";
import { MockLlmClient, mockHang } from "../../support/mock-llm-client.js";
import {
  createTestSession,
  type TestServices,
  testServices,
  testSessionRequest,
} from "../session/session-services.js";

describe("SessionRegistry", () => {
  let env: TestServices | null = null;

  afterEach(async () => {
    await env?.cleanup();
    env = null;
  });

  function registryWith(answer: string): { registry: SessionRegistry; workspace: string } {
    env = testServices(() => new MockLlmClient([textBlockStart(0), textDelta(0, answer), textBlockStop(0)]));
    return { registry: new SessionRegistry(env.services), workspace: env.workspace };
  }

  const create = createTestSession;

  it("retries work once on a fresh actor when the actor stops underneath it", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = await create(registry, workspace);
    const first = (await registry.get(id)).cursor.generation;
    let calls = 0;
    const snapshot = await registry.withActor(id, async (actor) => {
      calls += 1;
      if (calls === 1) await registry.restart(id);
      return actor.snapshot();
    });
    expect(calls).toBe(2);
    expect(snapshot.cursor?.generation).not.toBe(first);
    expect(snapshot.cursor?.generation).toBe((await registry.get(id)).cursor.generation);
  });

  it("loads no session again once the drain has begun (a reconnecting stream gets a 503)", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = await create(registry, workspace);
    await registry.get(id);
    await registry.drain(1_000);
    await expect(registry.get(id)).rejects.toBeInstanceOf(DaemonDrainingError);
  });

  it("does not retry when the session is gone", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = await create(registry, workspace);
    await registry.withActor(id, (actor) => actor.delete());
    registry.forget(id);
    await expect(registry.withActor(id, (actor) => actor.snapshot())).rejects.toBeInstanceOf(
      SessionNotFoundError,
    );
  });

  it("answers a session whose row went away under its loaded actor as not found, without retrying on a stopped actor", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = await create(registry, workspace);
    const actor = await registry.get(id);
    // Only the row goes (a deletion half done, as by hand): the log is still there to read.
    env!.db.pragma("foreign_keys = OFF");
    env!.db.prepare("DELETE FROM sessions WHERE id = ?").run(id);
    let calls = 0;
    const answer = registry.withActor(id, (current) => {
      calls += 1;
      return current.snapshot();
    });
    await expect(answer).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(calls).toBe(1);
    expect(actor.stopped).toBe(false);
  });

  it("runs a turn for a submitted input and keeps its history durable across a reload", async () => {
    const { registry, workspace } = registryWith("Hello there");
    const id = await create(registry, workspace);
    const actor = await registry.get(id);
    await actor.submit(uuidv7(), { kind: "message", text: "Hi" }, unnamedSource);
    for (let i = 0; i < 200 && (actor.busy || (await actor.snapshot(0)).pending_inputs.length > 0); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await registry.restart(id);
    const history = (await registry.withActor(id, (fresh) => fresh.snapshot())).history.items;
    expect(history.map((entry) => [entry.kind, entry.content])).toEqual([
      ["user", [{ kind: "text", text: "Hi" }]],
      ["assistant", [{ kind: "text", text: "Hello there" }]],
    ]);
  });

  it("creates a session with its first input admitted and its turn started in the creation's one commit", async () => {
    const { registry, workspace } = registryWith("Hello there");
    const id = uuidv7();
    const inputId = uuidv7();
    const before = env!.storage.commitStats().transactions;
    const created = await registry.create({
      ...testSessionRequest(id, workspace),
      firstInput: { id: inputId, intent: { kind: "message", text: "Hi" }, source: unnamedSource },
    });
    // The creation, the admission and the start: one transaction; nothing else was written yet.
    expect(env!.storage.commitStats().transactions - before).toBe(1);
    const receipt = await created.firstInput?.();
    expect(receipt).toMatchObject({ id: inputId, acceptance_order: 1, delivery: "committed" });
    expect(receipt?.turn?.state).toBe("running");
    // The snapshot is the session as created, before its first input; its actor runs the turn.
    const snapshot = await created.snapshot();
    expect(snapshot.status.phase).toBe("idle");
    expect(snapshot.history.items).toEqual([]);
    expect(created.actor.busy).toBe(true);
    await created.actor.turnSettled();
    for (let i = 0; i < 200 && created.actor.busy; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    // The turn's end is the only other commit.
    expect(env!.storage.commitStats().transactions - before).toBe(2);
    expect(getTurn(env!.db, receipt!.turn!.id)?.state).toBe("completed");
    await registry.restart(id);
    const history = (await registry.withActor(id, (fresh) => fresh.snapshot())).history.items;
    expect(history.map((entry) => [entry.kind, entry.input_id ?? null])).toEqual([
      ["user", inputId],
      ["assistant", null],
    ]);
  });

  it("ends a turn cut by a restart as failed and leaves the queued input to the next actor", async () => {
    let calls = 0;
    env = testServices(() => {
      calls += 1;
      return calls === 1
        ? new MockLlmClient([mockHang()])
        : new MockLlmClient([textBlockStart(0), textDelta(0, "done"), textBlockStop(0)]);
    });
    const registry = new SessionRegistry(env.services);
    const id = await create(registry, env.workspace);
    const actor = await registry.get(id);
    const first = uuidv7();
    const queued = uuidv7();
    await actor.submit(first, { kind: "message", text: "hangs" }, unnamedSource);
    for (let i = 0; i < 200 && calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    await actor.submit(queued, { kind: "message", text: "queued" }, unnamedSource);
    const snapshot = actor.snapshot(0); // keeps the mailbox busy while the restart happens
    await registry.restart(id);
    await snapshot.catch(() => undefined);
    const db = env.db;
    const firstTurn = getReceipt(db, id, first)?.turn;
    expect(firstTurn?.state).toBe("failed");
    expect(getTurn(db, firstTurn!.id)?.error).toBeTruthy();
    const fresh = await registry.get(id);
    for (let i = 0; i < 400 && getReceipt(db, id, queued)?.turn?.state !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(getReceipt(db, id, queued)?.turn?.state).toBe("completed");
    const users = (await fresh.snapshot()).history.items.filter((entry) => entry.kind === "user");
    expect(users.map((entry) => entry.content)).toEqual([
      [{ kind: "text", text: "hangs" }],
      [{ kind: "text", text: "queued" }],
    ]);
  });

  it("loads a session asked for during a restart only once the old actor has written its turn's end", async () => {
    let calls = 0;
    env = testServices(() => {
      calls += 1;
      return calls === 1
        ? new MockLlmClient([mockHang()])
        : new MockLlmClient([textBlockStart(0), textDelta(0, "after"), textBlockStop(0)]);
    });
    const registry = new SessionRegistry(env.services);
    const id = await create(registry, env.workspace);
    const actor = await registry.get(id);
    const first = uuidv7();
    await actor.submit(first, { kind: "message", text: "hangs" }, unnamedSource);
    for (let i = 0; i < 200 && calls === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    // Not awaited: the request comes while the old actor is still stopping.
    const restarted = registry.restart(id);
    const fresh = await registry.get(id);
    await restarted;
    expect(fresh).not.toBe(actor);
    expect(getReceipt(env.db, id, first)?.turn?.state).toBe("failed");
    // The new actor's log ends where the old one's last write left it: its own appends chain on.
    const next = uuidv7();
    await fresh.submit(next, { kind: "message", text: "next" }, unnamedSource);
    for (let i = 0; i < 400 && getReceipt(env.db, id, next)?.turn?.state !== "completed"; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(getReceipt(env.db, id, next)?.turn?.state).toBe("completed");
  });

  it("fails a turn whose workspace the tools refuse, saying why, and takes the next input the same way", async () => {
    env = testServices(() => new MockLlmClient([textBlockStart(0), textDelta(0, "never"), textBlockStop(0)]));
    // The workspace is the daemon's home itself, as a session stored before such workspaces were refused.
    const home = env.workspace;
    env.services.tools = async (session) =>
      builtinTools(session.workspace, { hiddenPaths: [home], shell: "off" });
    const registry = new SessionRegistry(env.services);
    const id = await create(registry, home);
    const actor = await registry.get(id);
    for (const text of ["first", "second"]) {
      const inputId = uuidv7();
      await actor.submit(inputId, { kind: "message", text }, unnamedSource);
      for (let i = 0; i < 400 && getReceipt(env.db, id, inputId)?.turn?.state !== "failed"; i++) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const turn = getReceipt(env.db, id, inputId)?.turn;
      expect(turn?.state).toBe("failed");
      expect(getTurn(env.db, turn!.id)?.error).toMatch(/lies inside .* hidden from the agent/);
    }
  });

  it("gives a fork made by an older daemon (history in its session_start, no preview stored) its preview on load", async () => {
    const { registry, workspace } = registryWith("hi");
    const source = await create(registry, workspace);
    const id = uuidv7();
    const { db, storage } = env!;
    insertSession(db, { id, workspace, parentId: source, createdAt: Date.now() });
    await storage.log.append(id, [
      hashEntry(null, {
        kind: "session_start",
        ts: 1,
        system_prompt: null,
        config: {},
        history: [userMessage("an old fork's question"), assistantMessage("its answer")],
        forked_from: { session_id: source, entry_hash: "a".repeat(64) },
      }),
    ]);
    expect((await registry.list()).find((item) => item.id === id)?.preview.transcript_count).toBe(0);
    const snapshot = await registry.withActor(id, (actor) => actor.snapshot());
    const repaired = { text: "an old fork's question", transcript_count: 1, truncated: false };
    expect(snapshot.preview).toEqual(repaired);
    expect((await registry.list()).find((item) => item.id === id)?.preview).toEqual(repaired);
    expect(snapshot.history.items.map((entry) => entry.id)).toEqual(["0-0", "0-1"]);
  });

  it("serves a session created after a request for its id found nothing, and keeps no trace of the miss", async () => {
    const { registry, workspace } = registryWith("hi");
    const id = uuidv7();
    await expect(registry.get(id)).rejects.toBeInstanceOf(SessionNotFoundError);
    await create(registry, workspace, id);
    registry.forget(id);
    expect((await registry.get(id)).sessionId).toBe(id);
    for (let i = 0; i < 50; i++)
      await expect(registry.get(uuidv7())).rejects.toBeInstanceOf(SessionNotFoundError);
    expect(registry.loadingCount).toBe(0);
  });
});
