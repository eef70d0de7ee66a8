/**
 * A loaded session's log read by range: each range is verified on read and must chain up to a
 * checkpoint verified before, so even a consistent rewrite of the stored log (every hash
 * recomputed) is found, while only the range and at most a checkpoint spacing is read.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { anchoredLog } from "../../../src/daemon/session/anchored-log.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import { canonicalJson } from "../../../src/log/canonical-json.js";
import { ChainCheckpoints } from "../../../src/log/chain-checkpoints.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { computeHash } from "../../../src/log/entry-hash.js";
import { LogCorruptError } from "../../../src/log/errors.js";
import { planPrune } from "../../../src/log/prune-plan.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { createPgSchema, type PgSchema } from "../../support/pg-schema.js";
import { freshPgSessionStorage } from "../storage/storage-backends.js";
import { tempDatabase } from "../storage/temp-database.js";

const ts = Date.parse("2025-05-06T07:08:09.010Z");
const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };
const said = (text: string): LogEntry => ({ kind: "user_input", ts, item: userMessage(text) });

/** Session "s" of `storage` with `count` entries (a start, then user inputs); its writer. */
async function filledSession(storage: SessionStorage, count: number) {
  await storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
  const writer = storage.writerFrom("s", await storage.readLog("s"));
  await writer.append(
    Array.from({ length: count - 1 }, (_, i) => said(`m${i + 1}`)),
    {},
  );
  return writer;
}

/** Anchored logs of session "s" on `checkpoints`, every range read recorded as `[from, limit]`, every corruption found kept. */
function recordedLog(
  storage: Pick<SessionStorage, "readLogRange">,
  checkpoints: ChainCheckpoints,
  chunk?: number,
) {
  const ranges: Array<[number, number]> = [];
  const counted = {
    readLogRange: (id: string, from: number, limit: number) => {
      ranges.push([from, limit]);
      return storage.readLogRange(id, from, limit);
    },
  };
  const found: LogCorruptError[] = [];
  const log = () => anchoredLog("s", counted, checkpoints, (error) => found.push(error), chunk);
  return { ranges, found, log };
}

/** A session with `count` entries in real SQLite storage, and its checkpoints as the actor keeps them. */
async function loggedSession(count: number, spacing: number) {
  const { db } = tempDatabase();
  const storage = new SqliteSessionStorage(db);
  const writer = await filledSession(storage, count);
  const checkpoints = ChainCheckpoints.ofVerified(await storage.readLog("s"), spacing);
  return { storage, db, writer, checkpoints, ...recordedLog(storage, checkpoints) };
}

/** Rewrite entries from `from` on with new texts and recomputed hashes: a consistent chain, not the one verified. */
function rewriteFrom(db: ReturnType<typeof tempDatabase>["db"], from: number, last: number): void {
  let prev = db
    .prepare("SELECT hash FROM transcript WHERE session = 's' AND position = ?")
    .pluck()
    .get(from - 1) as string;
  for (let position = from; position <= last; position++) {
    const entry = said(`forged ${position}`);
    const hash = computeHash(prev, entry);
    db.prepare(
      "UPDATE transcript SET entry = ?, hash = ?, prev_hash = ? WHERE session = 's' AND position = ?",
    ).run(canonicalJson(entry), hash, prev, position);
    prev = hash;
  }
  db.prepare("UPDATE transcript_heads SET hash = ? WHERE session = 's'").run(prev);
}

describe("anchored log reads", () => {
  it("read a range up to the nearest checkpoint only, and the range before it anchored on that range", async () => {
    const { log, ranges } = await loggedSession(100, 16);
    const view = log();
    expect(view.head).toBe(99);
    const tail = await view.read(90, 99);
    expect(tail.map((e) => e.position)).toEqual([90, 91, 92, 93, 94, 95, 96, 97, 98, 99]);
    expect((tail[0]!.entry as { item: { content: unknown } }).item).toEqual(userMessage("m90"));
    const earlier = await view.read(40, 41);
    expect(earlier.map((e) => e.position)).toEqual([40, 41]);
    const before = await view.read(85, 89);
    expect(before.map((e) => e.position)).toEqual([85, 86, 87, 88, 89]);
    // 90..99 anchors on the head; 40..41 on the checkpoint at 47; 85..89 on 89, learned from the first read.
    expect(ranges).toEqual([
      [90, 10],
      [40, 8],
      [85, 5],
    ]);
  });

  it("anchor on the head the view was taken at, not on entries committed after it", async () => {
    const { log, writer, checkpoints } = await loggedSession(10, 4);
    const view = log();
    const placed = await writer.append([said("later")], {});
    checkpoints.advance({ position: writer.position, hash: writer.headHash! });
    expect(placed[0]!.position).toBe(10);
    expect(view.head).toBe(9);
    expect((await view.read(8, 9)).map((e) => e.position)).toEqual([8, 9]);
    await expect(view.read(9, 10)).rejects.toThrow(RangeError);
    expect((await log().read(10, 10))[0]!.entry).toEqual(said("later"));
  });

  it("find a consistent rewrite of the stored log (every hash recomputed) and report it", async () => {
    const { log, db, found } = await loggedSession(40, 8);
    rewriteFrom(db, 30, 39);
    // The range itself verifies: only its anchor tells it is not the log verified before.
    const failure = await log()
      .read(35, 39)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LogCorruptError);
    expect((failure as LogCorruptError).position).toBe(39);
    expect(found).toEqual([failure]);
    expect((await log().read(10, 20)).length).toBe(11);
  });

  it("report an entry changed in place (its hash no longer matches) as the store finds it", async () => {
    const { log, db, found } = await loggedSession(20, 8);
    db.prepare("UPDATE transcript SET entry = ? WHERE session = 's' AND position = 12").run(
      canonicalJson(said("changed")),
    );
    await expect(log().read(10, 14)).rejects.toBeInstanceOf(LogCorruptError);
    expect(found).toHaveLength(1);
    expect(found[0]!.position).toBe(12);
  });
});

/** A backend's storage and a way to run SQL on its rows (`$1`-style parameters) to tamper with them. */
interface TamperableStorage {
  storage: SessionStorage;
  sql(statement: string, params: unknown[]): Promise<Array<Record<string, unknown>>>;
}

let schema: PgSchema | undefined;
beforeAll(async () => {
  schema = await createPgSchema("skein_anchored");
});
afterAll(async () => {
  await schema?.drop();
});

const backends: Array<{ name: string; open: () => Promise<TamperableStorage> }> = [
  {
    name: "SQLite",
    open: async () => {
      const { db } = tempDatabase();
      return {
        storage: new SqliteSessionStorage(db),
        sql: async (statement, params) => {
          const prepared = db.prepare(statement.replace(/\$\d+/g, "?"));
          if (prepared.reader) return prepared.all(...params) as Array<Record<string, unknown>>;
          prepared.run(...params);
          return [];
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    open: async () => {
      if (schema === undefined) throw new Error("the PostgreSQL schema is read before it was made");
      const current = schema;
      return {
        storage: await freshPgSessionStorage(current),
        sql: (statement, params) => current.query(statement, params),
      };
    },
  },
];

describe.each(backends)("anchored reads before a state checkpoint ($name)", ({ open }) => {
  const spacing = 4;
  const chunk = 8;

  /**
   * A session of `count` entries whose checkpoints are what a restore from a state checkpoint
   * at `at` knows (the entries from it on), every range read recorded as `[from, limit]`.
   */
  async function restoredSession(count: number, at: number) {
    const { storage, sql } = await open();
    await filledSession(storage, count);
    const whole = await storage.readLog("s");
    const checkpoints = ChainCheckpoints.ofVerified(
      whole.filter((entry) => entry.position >= at),
      spacing,
    );
    return { storage, sql, whole, ...recordedLog(storage, checkpoints, chunk) };
  }

  it("read a range far before the checkpoint in chunks of at most the chunk size, then anchor the next one on what it proved", async () => {
    const { whole, ranges, log } = await restoredSession(80, 60);
    const view = log();
    expect(await view.read(10, 14)).toEqual(whole.slice(10, 15));
    // Backwards from the checkpoint at 60, each chunk ending where the one after it starts.
    expect(ranges).toEqual([
      [53, 8],
      [45, 8],
      [37, 8],
      [29, 8],
      [21, 8],
      [13, 8],
      [10, 3],
    ]);
    ranges.length = 0;
    // Learned: the points at 11, 15, ..., 59 hold for this view and for views taken later.
    expect(await view.read(20, 22)).toEqual(whole.slice(20, 23));
    expect(await log().read(40, 41)).toEqual(whole.slice(40, 42));
    expect(ranges).toEqual([
      [20, 4],
      [40, 4],
    ]);
  });

  it("read the same entries as the log holds, whatever the range (each chunk checked)", async () => {
    const { whole, ranges, log } = await restoredSession(50, 40);
    for (const [from, to] of [
      [0, 0],
      [0, 49],
      [3, 17],
      [39, 41],
      [17, 17],
      [8, 39],
    ] as const) {
      expect(await log().read(from, to)).toEqual(whole.slice(from, to + 1));
    }
    expect(Math.max(...ranges.map(([, limit]) => limit))).toBeLessThanOrEqual(chunk);
  });

  it("find an entry forged in the middle of the skipped span, with every hash after it recomputed to a chunk's end", async () => {
    const { sql, ranges, found, log } = await restoredSession(80, 60);
    // The chunk 37..44 is forged as a consistent chain from 36: only its link to 45 breaks.
    let prev = String(
      (await sql("SELECT hash FROM transcript WHERE session = $1 AND position = $2", ["s", 36]))[0]!.hash,
    );
    for (let position = 37; position <= 44; position++) {
      const entry = said(`forged ${position}`);
      const hash = computeHash(prev, entry);
      await sql(
        "UPDATE transcript SET entry = $1, hash = $2, prev_hash = $3 WHERE session = $4 AND position = $5",
        [canonicalJson(entry), hash, prev, "s", position],
      );
      prev = hash;
    }
    const failure = await log()
      .read(10, 14)
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(LogCorruptError);
    expect((failure as LogCorruptError).position).toBeGreaterThanOrEqual(44);
    expect((failure as LogCorruptError).position).toBeLessThanOrEqual(45);
    expect(found).toEqual([failure]);
    expect(Math.max(...ranges.map(([, limit]) => limit))).toBeLessThanOrEqual(chunk);
  });

  it("find an entry changed in place in the middle of the skipped span", async () => {
    const { sql, found, ranges, log } = await restoredSession(80, 60);
    await sql("UPDATE transcript SET entry = $1 WHERE session = $2 AND position = $3", [
      canonicalJson(said("changed")),
      "s",
      33,
    ]);
    await expect(log().read(10, 14)).rejects.toBeInstanceOf(LogCorruptError);
    expect(found).toHaveLength(1);
    expect(found[0]!.position).toBe(33);
    expect(Math.max(...ranges.map(([, limit]) => limit))).toBeLessThanOrEqual(chunk);
  });

  it("read a pruned log from its cut, in chunks, and nothing before it", async () => {
    const { storage } = await open();
    const turn = (i: number): LogEntry[] => [
      said(`q${i}`),
      { kind: "assistant_items", ts, items: [assistantMessage(`a${i} `.repeat(40))] },
      { kind: "turn_end", ts, turn_count: i + 1 },
    ];
    const compaction: LogEntry = {
      kind: "compaction",
      ts,
      summary: "s",
      first_kept_position: 28,
      before_tokens: 9,
      after_tokens: 1,
    };
    const entries = [start, ...Array.from({ length: 9 }, (_, i) => turn(i)).flat(), compaction, ...turn(9)];
    await storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, entries, emptyPreview);
    const before = await storage.readLog("s");
    const decision = planPrune(before, { keep_entries: 2, above_bytes: 0 }, ts);
    if (decision.kind !== "prune") throw new Error(decision.reason);
    await storage.pruneLog("s", before.at(-1)!.hash, decision.plan.entry);
    const pruned = await storage.readLog("s");
    const cut = pruned[0]!.position;
    expect(cut).toBeGreaterThan(10);
    const checkpoints = ChainCheckpoints.ofVerified(pruned, spacing);
    const log = anchoredLog("s", storage, checkpoints, () => undefined, 4);
    expect(await log.read(0, pruned.at(-1)!.position)).toEqual(pruned);
    expect(await log.read(0, cut - 1)).toEqual([]);
    expect(await log.read(cut - 3, cut + 3)).toEqual(pruned.slice(0, 4));
  });
});
