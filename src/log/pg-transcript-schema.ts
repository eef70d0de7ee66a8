/**
 * The log's tables on PostgreSQL: `transcript` and `transcript_heads`, made when missing.
 *
 * Boundary rule: the tables only (transcript-schema.ts holds their text for both databases);
 * what is read and written in them is pg-store.ts's.
 */
import type pg from "pg";
import { backfillRecordedHeads, transcriptTables } from "./transcript-schema.js";

/**
 * Create the `transcript` table and `transcript_heads` if they do not exist (idempotent). A
 * database from before recorded heads gets one per session, from its last entry.
 */
export async function createPgTranscriptSchema(queryable: pg.Pool | pg.PoolClient): Promise<void> {
  const existing = await queryable.query("SELECT to_regclass('transcript_heads') IS NOT NULL AS present");
  const hadHeads = (existing.rows[0] as { present: boolean }).present;
  for (const statement of transcriptTables("postgres")) await queryable.query(statement);
  if (!hadHeads) await queryable.query(backfillRecordedHeads);
}
