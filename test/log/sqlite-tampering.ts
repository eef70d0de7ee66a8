/** Ways to tamper with a SQLite store's stored rows behind its back, for the tests of its reads. */
import type Database from "better-sqlite3";

/** Change the first digit of the entry's ts in the stored row: still valid JSON, different content. */
export function corruptRow(db: Database.Database, sessionId: string, position: number): void {
  const text = db
    .prepare<[string, number], string>("SELECT entry FROM transcript WHERE session = ? AND position = ?")
    .pluck()
    .get(sessionId, position)!;
  const at = text.indexOf('"ts":') + 5;
  const digit = text[at] === "9" ? "8" : String(Number(text[at]) + 1);
  db.prepare("UPDATE transcript SET entry = ? WHERE session = ? AND position = ?").run(
    text.slice(0, at) + digit + text.slice(at + 1),
    sessionId,
    position,
  );
}

/** One way to tamper with a stored session, at a position of it. */
export type Tampering =
  | "entry"
  | "kind"
  | "prev_hash null"
  | "prev_hash garbage"
  | "hash"
  | "delete"
  | "extra row between"
  | "extra row before"
  | "extra row with a text position"
  | "move far";

export const tamperings: readonly Tampering[] = [
  "entry",
  "kind",
  "prev_hash null",
  "prev_hash garbage",
  "hash",
  "delete",
  "extra row between",
  "extra row before",
  "extra row with a text position",
  "move far",
];

export function tamper(db: Database.Database, id: string, position: number, how: Tampering): void {
  const where = "WHERE session = ? AND position = ?";
  const insertCopy = (at: number | string) =>
    db
      .prepare(
        `INSERT INTO transcript (session, position, hash, prev_hash, kind, entry, created_at)
         SELECT session, ?, hash, prev_hash, kind, entry, 0 FROM transcript ${where}`,
      )
      .run(at, id, position);
  switch (how) {
    case "entry":
      corruptRow(db, id, position);
      return;
    case "kind":
      db.prepare(
        `UPDATE transcript SET kind = CASE kind WHEN 'note' THEN 'turn_end' ELSE 'note' END ${where}`,
      ).run(id, position);
      return;
    case "prev_hash null":
      db.prepare(`UPDATE transcript SET prev_hash = CASE WHEN prev_hash IS NULL THEN 'zz' END ${where}`).run(
        id,
        position,
      );
      return;
    case "prev_hash garbage":
      db.prepare(`UPDATE transcript SET prev_hash = 'x' || ifnull(prev_hash, '') ${where}`).run(id, position);
      return;
    case "hash":
      db.prepare(`UPDATE transcript SET hash = 'X' || substr(hash, 2) ${where}`).run(id, position);
      return;
    case "delete":
      db.prepare(`DELETE FROM transcript ${where}`).run(id, position);
      return;
    case "extra row between":
      insertCopy(position + 0.5);
      return;
    case "extra row before":
      insertCopy(-1 - position);
      return;
    case "extra row with a text position":
      insertCopy(`p${position}`);
      return;
    case "move far":
      db.prepare(`UPDATE transcript SET position = position + 1000000 ${where}`).run(id, position);
      return;
  }
}
