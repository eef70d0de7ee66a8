/**
 * A loaded session's log read by range: each range is verified on read and must chain up to a
 * checkpoint verified before, so even a consistent rewrite of the stored log (every hash
 * recomputed) is found, while only the range and at most a checkpoint spacing is read.
 */
import { describe, expect, it } from "vitest";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import { anchoredLog } from "../../../src/daemon/session/anchored-log.js";
import { SqliteSessionStorage } from "../../../src/daemon/storage/sqlite-session-storage.js";
import { canonicalJson } from "../../../src/log/canonical-json.js";
import { ChainCheckpoints } from "../../../src/log/chain-checkpoints.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { computeHash } from "../../../src/log/entry-hash.js";
import { LogCorruptError } from "../../../src/log/errors.js";
import { userMessage } from "../../../src/model/items.js";
import { tempDatabase } from "../storage/temp-database.js";

const ts = Date.parse("2025-05-06T07:08:09.010Z");
const start: LogEntry = { kind: "session_start", ts, system_prompt: null, config: {}, history: [] };
const said = (text: string): LogEntry => ({ kind: "user_input", ts, item: userMessage(text) });

/** A session with `count` entries in real SQLite storage, and its checkpoints as the actor keeps them. */
async function loggedSession(count: number, spacing: number) {
  const { db } = tempDatabase();
  const storage = new SqliteSessionStorage(db);
  await storage.createSession({ id: "s", workspace: "/tmp/work", createdAt: ts }, [start], emptyPreview);
  const writer = storage.writerFrom("s", await storage.readLog("s"));
  await writer.append(
    Array.from({ length: count - 1 }, (_, i) => said(`m${i + 1}`)),
    {},
  );
  const checkpoints = ChainCheckpoints.ofVerified(await storage.readLog("s"), spacing);
  const ranges: Array<[number, number]> = [];
  const counted = {
    readLogRange: (id: string, from: number, limit: number) => {
      ranges.push([from, limit]);
      return storage.readLogRange(id, from, limit);
    },
  };
  const found: LogCorruptError[] = [];
  const log = () => anchoredLog("s", counted, checkpoints, (error) => found.push(error));
  return { storage, db, writer, checkpoints, ranges, found, log };
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
