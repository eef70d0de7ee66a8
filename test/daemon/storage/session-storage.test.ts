/**
 * The storage port on both backends (SQLite, and PostgreSQL in a schema of its own): a turn's
 * log entries and its rows commit together or not at all, deletion removes the log through its
 * store and every row, and concurrent writes share transactions (group commit).
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import {
  InputConflictError,
  InputNotFreshError,
  InputNotPendingError,
  TurnStateError,
} from "../../../src/daemon/errors.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { migrations } from "../../../src/daemon/storage/daemon-migrations.js";
import { DatabaseVersionError } from "../../../src/daemon/storage/daemon-schema.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { tablesWithSessionColumn } from "../../../src/daemon/storage/sessions-table.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { userMessage } from "../../../src/model/items.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { freshPgSessionStorage } from "./storage-backends.js";
import { tempDatabase } from "./temp-database.js";

/** A backend under test: fresh storage, and a way to count rows behind its back. */
interface Backend {
  name: string;
  open(): Promise<SessionStorage>;
  count(table: string, session: string): Promise<number>;
  tables(): Promise<string[]>;
}

let schema: PgSchema;
beforeAll(async () => {
  schema = await createPgSchema("skein_storage");
});
afterAll(async () => {
  await schema.drop();
});

const sqlite = (): Backend => {
  let storage: SqliteSessionStorage | null = null;
  return {
    name: "SQLite",
    async open() {
      storage = new SqliteSessionStorage(tempDatabase().db, { signer: HeadSigner.generate() });
      return storage;
    },
    async count(table, session) {
      return (
        storage!.db.prepare(`SELECT count(*) AS n FROM ${table} WHERE session = ?`).get(session) as {
          n: number;
        }
      ).n;
    },
    async tables() {
      return tablesWithSessionColumn(storage!.db);
    },
  };
};

const postgres = (): Backend => ({
  name: "PostgreSQL",
  async open() {
    return freshPgSessionStorage(schema, { signer: HeadSigner.generate() });
  },
  async count(table, session) {
    const rows = await schema.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE session = $1`, [
      session,
    ]);
    return Number(rows[0]!.n);
  },
  async tables() {
    const rows = await schema.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.columns
       WHERE table_schema = current_schema() AND column_name = 'session' ORDER BY table_name`,
    );
    return rows.map((row) => row.name).filter((name) => !name.startsWith("transcript"));
  },
});

const ts = Date.parse("2025-05-06T07:08:09.010Z");
const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };

async function storageWithSession(backend: Backend, ...ids: string[]): Promise<SessionStorage> {
  const storage = await backend.open();
  for (const id of ids)
    await storage.createSession({ id, workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
  return storage;
}

/** The log entry of input `inputId` delivered in turn `turnId` (its text is its id). */
function userInputEntry(inputId: string, turnId: string): LogEntry {
  return { kind: "user_input", ts, item: userMessage(inputId), turn_id: turnId, input_id: inputId };
}

/** Admit an input the usual way: it waits in the queue. */
async function admitWaiting(storage: SessionStorage, sessionId: string, inputId: string): Promise<void> {
  await storage.admitInput({
    session: sessionId,
    id: inputId,
    kind: "message",
    intent: { text: inputId },
    acceptedAt: ts,
  });
}

/** Admit one input and deliver it in a turn: its entry, receipt and turn row in one append. */
async function deliverInput(storage: SessionStorage, sessionId: string, inputId: string, turnId: string) {
  await admitWaiting(storage, sessionId, inputId);
  const writer = storage.writerFrom(sessionId, await storage.readLog(sessionId));
  const entry = userInputEntry(inputId, turnId);
  return writer.append([entry], {
    startTurn: { id: turnId, inputIds: [inputId], startedAt: ts },
    committedInputs: { turnId, inputs: [{ id: inputId, transcriptPosition: writer.position + 1 }] },
  });
}

describe.each([sqlite(), postgres()])("the storage port on $name", (backend) => {
  it("answers a creation with the row and the log exactly as a later read returns them", async () => {
    const storage = await backend.open();
    const id = "0190f5c8-0000-7000-8000-0000000000c1";
    const policy: LogEntry = { kind: "approval_policy_changed", ts, policy: null, mode: "auto-edit" };
    const preview = { text: "", transcript_count: 0, truncated: false };
    const created = await storage.createSession(
      { id, workspace: "/tmp/work", createdAt: ts, name: "n", mcpServers: ["m"] },
      [start, policy],
      preview,
    );
    expect(created.row).toEqual(await storage.getSession(id));
    expect(created.restored).toEqual(await storage.restoreLog(id));
    // Every column a creation can set: the row it answers is built, not read back.
    const full = [
      {
        id: "0190f5c8-0000-7000-8000-0000000000c2",
        workspace: "/tmp/work",
        createdAt: ts + 1,
        name: null,
        providerProfile: "p",
        model: "m-1",
        systemPrompt: "be brief ✓",
        creationRequest: { kind: "new" as const, workspace: "/tmp/work", name: "ä" },
        preview: { text: "hello", transcript_count: 3, truncated: true },
      },
      {
        id: "0190f5c8-0000-7000-8000-0000000000c3",
        workspace: "/tmp/work",
        createdAt: ts + 2,
        parentId: id,
        fork: { checkpointId: "1", entryHash: "abc" },
        creationRequest: { kind: "fork" as const, source_session_id: id, checkpoint_id: "1" },
      },
      {
        id: "0190f5c8-0000-7000-8000-0000000000c4",
        workspace: "/tmp/work",
        createdAt: ts + 3,
        parentId: id,
        task: { parentCallId: "call-1", agent: "reviewer" },
      },
    ];
    for (const row of full) {
      const made = await storage.createSession(row, [start], row.preview ?? preview);
      expect(made.row).toEqual(await storage.getSession(row.id));
    }
  });

  it("commits a turn's log entries, its inputs and its row together", async () => {
    const storage = await storageWithSession(backend, "s");
    const placed = await deliverInput(storage, "s", "i1", "t1");
    expect(placed.map((entry) => entry.position)).toEqual([1]);
    expect(await storage.getReceipt("s", "i1")).toMatchObject({
      delivery: "committed",
      transcript_position: 1,
      turn: { id: "t1", state: "running" },
    });
    expect((await storage.runningTurnOf("s"))?.id).toBe("t1");
  });

  it("pages the session listing by keyset, every session once, ties on activity in id order", async () => {
    const storage = await storageWithSession(backend, "a", "b", "c", "d", "e");
    const seen: string[] = [];
    let after: { activityAt: number; id: string } | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await storage.listSessions(
        { kind: "top" },
        after === undefined ? { limit: 2 } : { limit: 2, after },
      );
      seen.push(...page.map((row) => row.id));
      const last = page.at(-1);
      if (page.length < 2 || last === undefined) break;
      after = { activityAt: last.activityAt, id: last.id };
    }
    expect(seen).toEqual(["e", "d", "c", "b", "a"]);
    expect((await storage.listSessions()).map((row) => row.id)).toEqual(seen);
  });

  it("keeps a running turn's interrupt mark (the first one) for the next start to read, and leaves an ended turn alone", async () => {
    const storage = await storageWithSession(backend, "s");
    await deliverInput(storage, "s", "i1", "t1");
    expect((await storage.runningTurnOf("s"))?.interruptRequestedAt).toBeNull();
    await storage.writeRows("s", { interruptRequested: { id: "t1", at: ts + 5 } });
    await storage.writeRows("s", { interruptRequested: { id: "t1", at: ts + 9 } });
    expect(await storage.runningTurnOf("s")).toMatchObject({ id: "t1", interruptRequestedAt: ts + 5 });
    expect((await storage.runningTurns()).map((turn) => turn.interruptRequestedAt)).toEqual([ts + 5]);

    await storage.failTurn("s", "t1", ts + 10, "crashed");
    // A mark for a turn that has ended changes nothing (and is not an error).
    await storage.writeRows("s", { interruptRequested: { id: "t1", at: ts + 11 } });
    expect(await storage.runningTurnOf("s")).toBeNull();
  });

  it("writes no log entry when a row write fails, and the writer stays where it was", async () => {
    const storage = await storageWithSession(backend, "s");
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
    const storage = await storageWithSession(backend, "gone", "kept");
    for (const id of ["gone", "kept"]) {
      await deliverInput(storage, id, `${id}-i1`, `${id}-t1`);
      // A compaction's commit writes the session's state checkpoint (transcript_checkpoints).
      const compaction: LogEntry = {
        kind: "compaction",
        ts,
        summary: "so far",
        first_kept_position: 1,
        before_tokens: 10,
        after_tokens: 5,
      };
      await storage.writerFrom(id, await storage.readLog(id)).append([compaction], {});
    }
    await storage.deleteSession("gone");
    const tables = await backend.tables();
    expect(tables).toEqual(expect.arrayContaining(["inputs", "turns"]));
    for (const table of [...tables, "transcript", "transcript_heads", "transcript_checkpoints"]) {
      expect(await backend.count(table, "gone"), table).toBe(0);
      // No cluster fences these storages, so they hold no leases.
      if (table !== "session_leases") expect(await backend.count(table, "kept"), table).toBeGreaterThan(0);
    }
    expect(await storage.getSession("gone")).toBeNull();
    expect((await storage.readLog("kept")).map((entry) => entry.position)).toEqual([0, 1, 2]);
  });

  it("group-commits concurrent admissions and appends of many sessions in few transactions", async () => {
    const ids = Array.from({ length: 8 }, (_, i) => `s${i}`);
    const storage = await storageWithSession(backend, ...ids);
    const before = storage.commitStats();
    await Promise.all(ids.map((id) => deliverInput(storage, id, `${id}-i1`, `${id}-t1`)));
    const after = storage.commitStats();
    expect(after.requests - before.requests).toBe(16);
    // SQLite: the admissions share one transaction, the appends (after each writer read its log)
    // one or two more. PostgreSQL batches what queued while a transaction was in flight, so
    // how the 16 writes split depends on timing; they must still share transactions.
    const bound = backend.name === "PostgreSQL" ? 8 : 4;
    expect(after.transactions - before.transactions).toBeLessThanOrEqual(bound);
    for (const id of ids) expect((await storage.getReceipt(id, `${id}-i1`))?.delivery).toBe("committed");
  });

  it("admits one input id once, however many times it is sent at once", async () => {
    const storage = await storageWithSession(backend, "s");
    const input = { session: "s", id: "same", kind: "message", intent: { text: "x" }, acceptedAt: ts };
    const answers = await Promise.all([1, 2, 3].map(() => storage.admitInput(input)));
    expect(answers.filter((answer) => answer.created)).toHaveLength(1);
    expect(new Set(answers.map((answer) => answer.receipt.acceptance_order))).toEqual(new Set([1]));
    const next = await storage.admitInput({ ...input, id: "next" });
    expect(next.receipt.acceptance_order).toBe(2);
  });
});

/** Admit `inputId` and deliver it in a turn in one append (what an idle session does). */
async function admitAndDeliver(
  storage: SessionStorage,
  sessionId: string,
  inputId: string,
  turnId: string,
  order: number,
) {
  const writer = storage.writerFrom(sessionId, await storage.readLog(sessionId));
  const entry = userInputEntry(inputId, turnId);
  const input = {
    session: sessionId,
    id: inputId,
    kind: "message",
    intent: { text: inputId },
    acceptedAt: ts,
  };
  return {
    writer,
    appended: writer.append([entry], {
      admission: { input, order },
      startTurn: { id: turnId, inputIds: [inputId], startedAt: ts },
      committedInputs: { turnId, inputs: [{ id: inputId, transcriptPosition: writer.position + 1 }] },
    }),
  };
}

describe.each([sqlite(), postgres()])("an admission in a turn's start on $name", (backend) => {
  it("admits the input, logs its entry and starts its turn in one transaction", async () => {
    const storage = await storageWithSession(backend, "s");
    const before = storage.commitStats();
    const { appended } = await admitAndDeliver(storage, "s", "i1", "t1", 1);
    expect((await appended).map((entry) => entry.position)).toEqual([1]);
    expect(storage.commitStats().transactions - before.transactions).toBe(1);
    expect(await storage.getReceipt("s", "i1")).toMatchObject({
      acceptance_order: 1,
      delivery: "committed",
      transcript_position: 1,
      turn: { id: "t1", state: "running" },
    });
    expect((await storage.getSession("s"))?.inputOrder).toBe(1);
  });

  it("refuses an input admitted before, writing nothing: no entry, no turn, the order kept", async () => {
    const storage = await storageWithSession(backend, "s");
    await admitWaiting(storage, "s", "i1");
    const { writer, appended } = await admitAndDeliver(storage, "s", "i1", "t1", 2);
    await expect(appended).rejects.toBeInstanceOf(InputNotFreshError);
    expect(writer.position).toBe(0);
    expect(await storage.readLog("s")).toHaveLength(1);
    expect(await storage.runningTurnOf("s")).toBeNull();
    expect(await storage.getReceipt("s", "i1")).toMatchObject({ acceptance_order: 1, delivery: "pending" });
    expect((await storage.getSession("s"))?.inputOrder).toBe(1);
  });

  it("refuses an input whose order is not the one expected, and an id of another session", async () => {
    const storage = await storageWithSession(backend, "s", "other");
    const late = await admitAndDeliver(storage, "s", "i1", "t1", 5);
    await expect(late.appended).rejects.toBeInstanceOf(InputNotFreshError);
    expect(await storage.getReceipt("s", "i1")).toBeNull();
    await storage.admitInput({ session: "other", id: "taken", kind: "message", intent: {}, acceptedAt: ts });
    const taken = await admitAndDeliver(storage, "s", "taken", "t2", 1);
    await expect(taken.appended).rejects.toBeInstanceOf(InputConflictError);
    expect(await storage.readLog("s")).toHaveLength(1);
    expect((await storage.getSession("s"))?.inputOrder).toBe(0);
  });

  it("refuses to let a new input overtake one that waits, writing nothing", async () => {
    const storage = await storageWithSession(backend, "s");
    await admitWaiting(storage, "s", "i1");
    const { writer, appended } = await admitAndDeliver(storage, "s", "i2", "t1", 2);
    const error = await appended.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InputNotFreshError);
    expect((error as InputNotFreshError).reason).toBe("1 input(s) wait before it");
    expect(writer.position).toBe(0);
    expect(await storage.getReceipt("s", "i2")).toBeNull();
    expect(await storage.runningTurnOf("s")).toBeNull();
    expect((await storage.getSession("s"))?.inputOrder).toBe(1);
  });

  it("fails a session's running turn, and refuses to fail it in another session's name", async () => {
    const storage = await storageWithSession(backend, "s", "other");
    await (await admitAndDeliver(storage, "s", "i1", "t1", 1)).appended;
    await expect(storage.failTurn("other", "t1", ts + 1, "crashed")).rejects.toBeInstanceOf(TurnStateError);
    expect((await storage.runningTurnOf("s"))?.id).toBe("t1");
    await storage.failTurn("s", "t1", ts + 2, "crashed");
    expect(await storage.runningTurnOf("s")).toBeNull();
    expect(await storage.getReceipt("s", "i1")).toMatchObject({ turn: { id: "t1", state: "failed" } });
  });

  it("refuses to start a second running turn, writing nothing", async () => {
    const storage = await storageWithSession(backend, "s");
    await (await admitAndDeliver(storage, "s", "i1", "t1", 1)).appended;
    const second = await admitAndDeliver(storage, "s", "i2", "t2", 2);
    await expect(second.appended).rejects.toThrow("session s already has a running turn");
    expect(await storage.getReceipt("s", "i2")).toBeNull();
    expect((await storage.runningTurnOf("s"))?.id).toBe("t1");
    expect(await storage.readLog("s")).toHaveLength(2);
  });
});

describe("the PostgreSQL schema", () => {
  it("refuses a database whose schema is newer than the code, naming both versions and writing nothing", async () => {
    const own = await createPgSchema("skein_version");
    onTestFinished(() => own.drop());
    const pool = await openPgDaemonDatabase(own.url, { max: 1 });
    await pool.end();
    await own.query("INSERT INTO schema_version (version, applied_at) VALUES (999, 0)");
    const error = await openPgDaemonDatabase(own.url, { max: 1 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseVersionError);
    expect((error as Error).message).toMatch(/schema version 999, newer than this daemon's \d+/);
    expect(await own.query("SELECT version FROM schema_version WHERE version = 999")).toHaveLength(1);
  });

  it("lets several daemons migrate one fresh database at once", async () => {
    const own = await createPgSchema("skein_migrate");
    onTestFinished(() => own.drop());
    const pools = await Promise.all([1, 2, 3].map(() => openPgDaemonDatabase(own.url, { max: 1 })));
    await Promise.all(pools.map((pool) => pool.end()));
    const versions = await own.query<{ version: number }>(
      "SELECT version FROM schema_version ORDER BY version",
    );
    expect(versions.map((row) => Number(row.version))).toEqual(
      migrations.map((migration) => migration.version),
    );
  });
});
