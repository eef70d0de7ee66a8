/**
 * The log's tables, declared once for every SQL backend: `transcript` (one row per entry; `entry`
 * holds the canonical JSON that was hashed) and `transcript_heads` (each session's recorded
 * head, see head-record.ts) and `transcript_checkpoints` (each session's latest signed state
 * checkpoint, see checkpoint-records.ts). Each backend asks for the statements in its own dialect.
 *
 * Boundary rule: schema only; the stores own what they write into it.
 */

/** The SQL dialects the log is stored in. */
export type SqlDialect = "sqlite" | "postgres";

interface Column {
  name: string;
  /** The column's type and constraints, per dialect. */
  type: Record<SqlDialect, string>;
}

function same(type: string): Record<SqlDialect, string> {
  return { sqlite: type, postgres: type };
}

const transcriptColumns: readonly Column[] = [
  // Nothing reads `seq` (entries are found by session and position). On SQLite a plain rowid
  // key: AUTOINCREMENT would keep its counter in `sqlite_sequence`, one more page written to the
  // log by every commit that appends. Tables made before keep AUTOINCREMENT, which works the same.
  { name: "seq", type: { sqlite: "INTEGER PRIMARY KEY", postgres: "BIGSERIAL PRIMARY KEY" } },
  { name: "session", type: same("TEXT NOT NULL") },
  { name: "position", type: same("INTEGER NOT NULL") },
  { name: "hash", type: same("TEXT NOT NULL") },
  { name: "prev_hash", type: same("TEXT") },
  { name: "kind", type: same("TEXT NOT NULL") },
  { name: "entry", type: same("TEXT NOT NULL") },
  { name: "created_at", type: { sqlite: "INTEGER NOT NULL", postgres: "BIGINT NOT NULL" } },
];

const headColumns: readonly Column[] = [
  { name: "session", type: same("TEXT PRIMARY KEY") },
  { name: "position", type: same("INTEGER NOT NULL") },
  { name: "hash", type: same("TEXT NOT NULL") },
  { name: "signature", type: same("TEXT") },
  { name: "key_id", type: same("TEXT") },
];

const checkpointColumns: readonly Column[] = [
  { name: "session", type: same("TEXT PRIMARY KEY") },
  { name: "position", type: same("INTEGER NOT NULL") },
  { name: "hash", type: same("TEXT NOT NULL") },
  { name: "state", type: same("TEXT NOT NULL") },
  { name: "signature", type: same("TEXT NOT NULL") },
  { name: "key_id", type: same("TEXT NOT NULL") },
];

function createTable(
  dialect: SqlDialect,
  name: string,
  columns: readonly Column[],
  extra: string[] = [],
): string {
  const lines = [...columns.map((column) => `${column.name} ${column.type[dialect]}`), ...extra];
  return `CREATE TABLE IF NOT EXISTS ${name} (\n  ${lines.join(",\n  ")}\n)`;
}

/** The statements that create the tables if they are missing (idempotent). */
export function transcriptTables(dialect: SqlDialect): string[] {
  return [
    createTable(dialect, "transcript", transcriptColumns, ["UNIQUE (session, position)"]),
    createTable(dialect, "transcript_heads", headColumns),
    createTable(dialect, "transcript_checkpoints", checkpointColumns),
  ];
}

/**
 * Gives every session of a database written before recorded heads existed a head, from its
 * last entry (run once, right after `transcript_heads` was created).
 */
export const backfillRecordedHeads =
  "INSERT INTO transcript_heads (session, position, hash) " +
  "SELECT t.session, t.position, t.hash FROM transcript t " +
  "WHERE t.position = (SELECT max(position) FROM transcript WHERE session = t.session)";
