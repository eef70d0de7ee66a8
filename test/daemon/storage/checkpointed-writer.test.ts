/**
 * The storage's session writer keeps the session's signed state checkpoint (on both backends):
 * a commit with a compaction writes one, so does a head moved 4,096 positions past the last,
 * plain commits in between do not, and the next restore starts from it with the full replay's
 * state; retention's cut removes it.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { openPgDaemonDatabase } from "../../../src/daemon/storage/pg-database.js";
import { PgSessionStorage } from "../../../src/daemon/storage/pg-session-storage.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import { collectState } from "../../../src/log/collect-state.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { HeadSigner } from "../../../src/log/head-signer.js";
import { planPrune } from "../../../src/log/prune-plan.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { tempDatabase } from "./temp-database.js";

let schema: PgSchema;
beforeAll(async () => {
  schema = await createPgSchema("skein_checkpointed");
});
afterAll(async () => {
  await schema.drop();
});

const backends: Array<{ name: string; open: () => Promise<SessionStorage> }> = [
  {
    name: "SQLite",
    open: async () => new SqliteSessionStorage(tempDatabase().db, { signer: HeadSigner.generate() }),
  },
  {
    name: "PostgreSQL",
    open: async () => {
      await schema.query(`DROP SCHEMA ${schema.name} CASCADE; CREATE SCHEMA ${schema.name}`);
      const pool = await openPgDaemonDatabase(schema.url, { max: 4 });
      const storage = new PgSessionStorage(pool, { signer: HeadSigner.generate() });
      onTestFinished(() => storage.close());
      return storage;
    },
  },
];

const ts = 1_000;
const start: LogEntry = { kind: "session_start", ts, system_prompt: "sys", config: {}, history: [] };
const turn = (i: number): LogEntry[] => [
  { kind: "user_input", ts, item: userMessage(`q${i}`) },
  { kind: "assistant_items", ts, items: [assistantMessage(`a${i}`)] },
  { kind: "turn_end", ts, turn_count: i + 1 },
];
const compaction = (firstKept: number): LogEntry => ({
  kind: "compaction",
  ts,
  summary: "what was said",
  first_kept_position: firstKept,
  before_tokens: 100,
  after_tokens: 10,
});

describe.each(backends)("the checkpointed session writer ($name)", ({ open }) => {
  async function session(): Promise<SessionStorage> {
    const storage = await open();
    await storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
    return storage;
  }

  /**
   * The position restore starts from (null: the whole log), once what was queued is committed: a
   * checkpoint is written in the group commit after its append, so a write queued after it
   * commits with it or later.
   */
  async function checkpointPosition(storage: SessionStorage): Promise<number | null> {
    await storage.writeRows("s", {});
    return (await storage.restoreLog("s")).checkpoint?.position ?? null;
  }

  it("writes a checkpoint at a compaction's commit, not at plain commits, and restores from it exactly", async () => {
    const storage = await session();
    const writer = storage.writerFromRestore("s", await storage.restoreLog("s"));
    for (let i = 0; i < 3; i++) await writer.append(turn(i), {});
    expect(await checkpointPosition(storage)).toBeNull();
    await writer.append([compaction(7)], {});
    await writer.append(turn(3), {});
    await writer.append(turn(4), {});
    expect(await checkpointPosition(storage)).toBe(10);
    const restored = await storage.restoreLog("s");
    expect(restored.entries.map((entry) => entry.position)).toEqual([10, 11, 12, 13, 14, 15, 16]);
    expect(restored.state).toEqual(collectState(await storage.readLog("s")));
    expect(await storage.verifyLogPrefix("s", restored.checkpoint!)).toBe(true);
  });

  it("writes one when the head moves 4,096 positions past the last", async () => {
    const storage = await session();
    const writer = storage.writerFromRestore("s", await storage.restoreLog("s"));
    const many: LogEntry[] = [];
    for (let i = 0; i < 1_366; i++) many.push(...turn(i));
    await writer.append(many.slice(0, 4_000), {});
    expect(await checkpointPosition(storage)).toBeNull();
    await writer.append(many.slice(4_000), {});
    await writer.append(turn(9_999), {});
    expect(await checkpointPosition(storage)).toBe(4_098);
    const restored = await storage.restoreLog("s");
    expect(restored.state).toEqual(collectState(await storage.readLog("s")));
  });

  it("loses its checkpoint with retention's cut, and then restores from the kept log whole", async () => {
    const storage = await session();
    const writer = storage.writerFromRestore("s", await storage.restoreLog("s"));
    for (let i = 0; i < 3; i++) await writer.append(turn(i), {});
    await writer.append([compaction(7)], {});
    await writer.append(turn(3), {});
    const entries = await storage.readLog("s");
    const decision = planPrune(entries, { keep_entries: 2, above_bytes: 0 }, ts);
    if (decision.kind !== "prune") throw new Error(decision.reason);
    expect(await checkpointPosition(storage)).toBe(10);
    await storage.pruneLog("s", writer.headHash!, decision.plan.entry);
    const restored = await storage.restoreLog("s");
    expect(restored.checkpoint).toBeNull();
    expect(restored.state).toEqual(collectState(await storage.readLog("s")));
  });
});
