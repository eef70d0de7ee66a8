import { describe, expect, it } from "vitest";
import { InputNotPendingError } from "../../../src/daemon/errors.js";
import { wholeLog } from "../../../src/daemon/history/history-log.js";
import { readHistoryPage } from "../../../src/daemon/history/history-page.js";
import { previewOf } from "../../../src/daemon/history/preview.js";
import { admitInput } from "../../../src/daemon/storage/input-admission.js";
import {
  getReceipt,
  listPendingInputs,
  markInputsCommitted,
} from "../../../src/daemon/storage/inputs-table.js";
import { getSession, setPreview } from "../../../src/daemon/storage/sessions-table.js";
import { getTurn, runningTurnOf, startTurn } from "../../../src/daemon/storage/turns-table.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { buildChain } from "../../../src/log/entry-hash.js";
import { AppendConflictError } from "../../../src/log/errors.js";
import { SqliteStore } from "../../../src/log/sqlite-store.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { addSession, tempDatabase } from "./temp-database.js";

const ts = Date.parse("2025-05-06T07:08:09.010Z");

function startSession(store: SqliteStore, sessionId: string): void {
  addSession(store.db, sessionId);
  const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };
  store.appendInTransaction(store.db, sessionId, buildChain(null, [start]));
}

/** Start a turn over the session's pending inputs: log entries, receipts and turn row in one transaction. */
async function commitTurn(
  store: SqliteStore,
  sessionId: string,
  turnId: string,
  prevHash: string | null,
): Promise<void> {
  const db = store.db;
  const head = (await store.readHead(sessionId))!;
  db.transaction(() => {
    const inputs = listPendingInputs(db, sessionId);
    const entries: LogEntry[] = inputs.map((input) => ({
      kind: "user_input",
      ts,
      item: userMessage(String((input.intent as { text: string }).text)),
      turn_id: turnId,
      input_id: input.id,
    }));
    startTurn(db, { id: turnId, session: sessionId, inputIds: inputs.map((i) => i.id), startedAt: ts });
    store.appendInTransaction(db, sessionId, buildChain(prevHash ?? head.hash, entries));
    markInputsCommitted(
      db,
      turnId,
      inputs.map((input, k) => ({ id: input.id, transcriptPosition: head.position + 1 + k })),
    );
  })();
}

describe("daemon storage in one transaction with the SQLite log store", () => {
  it("commits a turn's inputs, their log entries and the turn together", async () => {
    const { db } = tempDatabase();
    const store = new SqliteStore(db);
    startSession(store, "s");
    admitInput(db, { session: "s", id: "i1", kind: "message", intent: { text: "one" }, acceptedAt: ts });
    admitInput(db, { session: "s", id: "i2", kind: "message", intent: { text: "two" }, acceptedAt: ts });

    await commitTurn(store, "s", "t1", null);

    expect(getReceipt(db, "s", "i1")).toMatchObject({
      delivery: "committed",
      transcript_position: 1,
      turn: { id: "t1" },
    });
    expect(getReceipt(db, "s", "i2")).toMatchObject({ delivery: "committed", transcript_position: 2 });
    const log = await store.readAll("s");
    expect(
      log.map((p) => [p.position, p.entry.kind, "input_id" in p.entry ? p.entry.input_id : null]),
    ).toEqual([
      [0, "session_start", null],
      [1, "user_input", "i1"],
      [2, "user_input", "i2"],
    ]);
    expect(runningTurnOf(db, "s")?.id).toBe("t1");
  });

  it("leaves the inputs pending and starts no turn when the log append conflicts", async () => {
    const { db } = tempDatabase();
    const store = new SqliteStore(db);
    startSession(store, "s");
    admitInput(db, { session: "s", id: "i1", kind: "message", intent: { text: "one" }, acceptedAt: ts });

    await expect(commitTurn(store, "s", "t1", "0".repeat(64))).rejects.toThrow(AppendConflictError);

    expect(getReceipt(db, "s", "i1")).toMatchObject({
      delivery: "pending",
      transcript_position: null,
      turn: null,
    });
    expect(getTurn(db, "t1")).toBeNull();
    expect(await store.readAll("s")).toHaveLength(1);
  });

  it("writes no log entry when an input it delivers is no longer pending", async () => {
    const { db } = tempDatabase();
    const store = new SqliteStore(db);
    startSession(store, "s");
    admitInput(db, { session: "s", id: "i1", kind: "message", intent: { text: "one" }, acceptedAt: ts });
    const head = (await store.readHead("s"))!;
    expect(() =>
      db.transaction(() => {
        const entry: LogEntry = { kind: "user_input", ts, item: userMessage("one"), input_id: "i1" };
        store.appendInTransaction(db, "s", buildChain(head.hash, [entry]));
        markInputsCommitted(db, "t1", [{ id: "i1", transcriptPosition: 1 }]);
        markInputsCommitted(db, "t1", [{ id: "i1", transcriptPosition: 1 }]);
      })(),
    ).toThrow(InputNotPendingError);
    expect(await store.readAll("s")).toHaveLength(1);
    expect(getReceipt(db, "s", "i1")?.delivery).toBe("pending");
  });

  it("pages history from the store and passes a broken transcript table's error through as-is", async () => {
    const { db } = tempDatabase();
    const store = new SqliteStore(db);
    startSession(store, "s");
    admitInput(db, { session: "s", id: "i1", kind: "message", intent: { text: "hello" }, acceptedAt: ts });
    await commitTurn(store, "s", "t1", null);
    const head = (await store.readHead("s"))!;
    store.appendInTransaction(
      db,
      "s",
      buildChain(head.hash, [
        { kind: "assistant_items", ts, items: [assistantMessage("hi")], turn_id: "t1" },
      ]),
    );
    const page = await readHistoryPage(wholeLog(await store.readAll("s")), {
      sessionId: "s",
      secret: "k",
      now: ts,
    });
    expect(page.items.map((e) => [e.id, e.kind, e.input_id])).toEqual([
      ["1", "user", "i1"],
      ["2", "assistant", null],
    ]);
    setPreview(db, "s", previewOf(await store.readAll("s")));
    expect(getSession(db, "s")?.preview).toEqual({ text: "hello", transcript_count: 2, truncated: false });

    db.exec("ALTER TABLE transcript RENAME TO unavailable_transcript");
    const failure = await Promise.resolve()
      .then(async () =>
        readHistoryPage(wholeLog(await store.readAll("s")), { sessionId: "s", secret: "k", now: ts }),
      )
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as { code?: string }).code).toBe("SQLITE_ERROR");
  });
});
