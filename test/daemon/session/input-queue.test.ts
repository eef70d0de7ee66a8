/**
 * The input queue's knowledge of an empty queue: a turn's end asks for the waiting inputs, and
 * once a read found none and nothing was admitted since, the answer needs no statement. Real
 * SQLite storage, its statements counted.
 */
import { describe, expect, it } from "vitest";
import { InputQueue } from "../../../src/daemon/session/input-queue.js";
import type { SessionOutlet } from "../../../src/daemon/session/session-outlet.js";
import { type DaemonDatabase, statementsRun } from "../../../src/daemon/storage/database.js";
import { countedSqliteStorage } from "../storage/temp-database.js";

/** A queue over a new session "s" in a fresh database whose statements are counted. */
async function queueOverNewSession(): Promise<{ queue: InputQueue; db: DaemonDatabase }> {
  const { storage, db, folder: dir } = countedSqliteStorage();
  await storage.createSession(
    { id: "s", workspace: dir, createdAt: 1_000 },
    [{ kind: "session_start", ts: 1_000, system_prompt: null, config: {}, history: [] }],
    { text: "", transcript_count: 1, truncated: false },
  );
  const outlet: SessionOutlet = {
    sessionId: "s",
    publish: () => undefined,
    now: () => 2_000,
    logger: { info: () => {}, warn: () => {}, error: () => {} },
  };
  return { queue: new InputQueue(outlet, storage), db };
}

const source = { clientId: null, sentBy: null, sentFrom: null };

describe("the input queue", () => {
  it("answers an empty queue without a statement once a read found it empty and nothing was admitted since", async () => {
    const { queue, db } = await queueOverNewSession();
    expect(await queue.pending()).toEqual([]);
    const after = statementsRun(db);
    expect(await queue.pending()).toEqual([]);
    expect(statementsRun(db)).toBe(after);
  });

  it("reads the queue again after an admission, and finds the input", async () => {
    const { queue } = await queueOverNewSession();
    expect(await queue.pending()).toEqual([]);
    await queue.admit("i1", { kind: "message", text: "hi" }, source);
    expect((await queue.pending()).map((row) => row.id)).toEqual(["i1"]);
  });

  it("does not take a read that an admission overlapped for proof of an empty queue", async () => {
    const { queue } = await queueOverNewSession();
    // The read starts before the admission commits (both wait for the next group commit).
    const [read] = await Promise.all([
      queue.pending(),
      queue.admit("i1", { kind: "message", text: "hi" }, source),
    ]);
    expect(read).toEqual([]);
    expect((await queue.pending()).map((row) => row.id)).toEqual(["i1"]);
  });
});
