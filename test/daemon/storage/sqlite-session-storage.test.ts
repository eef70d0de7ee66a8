/**
 * The storage port's SQLite backend: a turn's log entries and its rows commit together or not
 * at all, deletion removes the log through its store and every row, and the writes of one tick
 * share one transaction.
 */
import { describe, expect, it } from "vitest";
import { InputNotPendingError } from "../../../src/daemon/errors.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { tablesWithSessionColumn } from "../../../src/daemon/storage/sessions-table.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { userMessage } from "../../../src/model/items.js";
import { tempDatabase } from "./temp-database.js";

const ts = Date.parse("2025-05-06T07:08:09.010Z");
const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };

async function storageWithSession(...ids: string[]): Promise<SqliteSessionStorage> {
  const { db } = tempDatabase();
  const storage = new SqliteSessionStorage(db);
  for (const id of ids)
    await storage.createSession({ id, workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
  return storage;
}

/** Admit one input and deliver it in a turn: its entry, receipt and turn row in one append. */
async function deliverInput(
  storage: SqliteSessionStorage,
  sessionId: string,
  inputId: string,
  turnId: string,
) {
  await storage.admitInput({
    session: sessionId,
    id: inputId,
    kind: "message",
    intent: { text: inputId },
    acceptedAt: ts,
  });
  const writer = storage.writerFrom(sessionId, await storage.readLog(sessionId));
  const entry: LogEntry = {
    kind: "user_input",
    ts,
    item: userMessage(inputId),
    turn_id: turnId,
    input_id: inputId,
  };
  return writer.append([entry], {
    startTurn: { id: turnId, inputIds: [inputId], startedAt: ts },
    committedInputs: { turnId, inputs: [{ id: inputId, transcriptPosition: writer.position + 1 }] },
  });
}

describe("SqliteSessionStorage", () => {
  it("commits a turn's log entries, its inputs and its row together", async () => {
    const storage = await storageWithSession("s");
    const placed = await deliverInput(storage, "s", "i1", "t1");
    expect(placed.map((entry) => entry.position)).toEqual([1]);
    expect(await storage.getReceipt("s", "i1")).toMatchObject({
      delivery: "committed",
      transcript_position: 1,
      turn: { id: "t1", state: "running" },
    });
    expect((await storage.runningTurnOf("s"))?.id).toBe("t1");
  });

  it("writes no log entry when a row write fails, and the writer stays where it was", async () => {
    const storage = await storageWithSession("s");
    await deliverInput(storage, "s", "i1", "t1");
    const writer = storage.writerFrom("s", await storage.readLog("s"));
    const entry: LogEntry = { kind: "continuation", ts, turn_id: "t2", input_id: "i1" };
    // i1 was delivered already: committing it again is refused, so the entry must not be logged.
    await expect(
      writer.append([entry], {
        committedInputs: { turnId: "t2", inputs: [{ id: "i1", transcriptPosition: 2 }] },
      }),
    ).rejects.toBeInstanceOf(InputNotPendingError);
    expect(writer.position).toBe(1);
    expect(await storage.readLog("s")).toHaveLength(2);
  });

  it("deletes a session's log through the store and every row of it, keeping other sessions intact", async () => {
    const storage = await storageWithSession("gone", "kept");
    for (const id of ["gone", "kept"]) await deliverInput(storage, id, `${id}-i1`, `${id}-t1`);
    await storage.deleteSession("gone");
    for (const table of [...tablesWithSessionColumn(storage.db), "transcript", "transcript_heads"]) {
      const count = (session: string) =>
        (
          storage.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE session = ?`).get(session) as {
            n: number;
          }
        ).n;
      expect(count("gone"), table).toBe(0);
      expect(count("kept"), table).toBeGreaterThan(0);
    }
    expect(await storage.getSession("gone")).toBeNull();
    expect((await storage.readLog("kept")).map((entry) => entry.position)).toEqual([0, 1]);
  });

  it("group-commits admissions and appends of one tick in one transaction", async () => {
    const storage = await storageWithSession("a", "b");
    const before = storage.commitStats().transactions;
    await Promise.all([
      deliverInput(storage, "a", "a-i1", "a-t1"),
      deliverInput(storage, "b", "b-i1", "b-t1"),
    ]);
    // Two ticks: the admissions, then the appends (each writer reads its log between them).
    expect(storage.commitStats().transactions - before).toBe(2);
  });
});
