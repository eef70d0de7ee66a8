/**
 * The `api_tokens` table: named API tokens, each with its role and, for a token bound to one
 * session, that session's id. Only the SHA-256 digest of a token's secret is stored, so a copy
 * of the database authenticates nobody. Revoking deletes the row: every node checks the table on
 * every request (request-authority.ts), so the token stops working at once everywhere.
 *
 * Devices share the table (kind `device`, device-table.ts): a name is a token's or a device's, and
 * the programs here see tokens only (kind `token`), so no bearer header is ever a device's cookie.
 *
 * Boundary rule: SQL programs (sql-program.ts) for either backend.
 */
import type { Role } from "../../api/roles.js";
import { all, get, run, type SqlProgram } from "./sql-program.js";

/** A named token as stored (times in ms since the epoch). */
export interface ApiTokenRow {
  name: string;
  /** SHA-256 (hex) of the token's secret. */
  digest: string;
  role: Role;
  sessionId: string | null;
  createdAt: number;
}

interface ApiTokenRecord {
  name: string;
  digest: string;
  role: Role;
  session_id: string | null;
  created_at: number | string;
}

const columns = "name, digest, role, session_id, created_at";

function rowOf(record: ApiTokenRecord): ApiTokenRow {
  return {
    name: record.name,
    digest: record.digest,
    role: record.role,
    sessionId: record.session_id,
    createdAt: Number(record.created_at),
  };
}

/** Store a new token; false (nothing written) when its name is taken. */
export function* insertApiTokenProgram(row: ApiTokenRow): SqlProgram<boolean> {
  const result = yield* run(
    `INSERT INTO api_tokens (${columns}) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING`,
    row.name,
    row.digest,
    row.role,
    row.sessionId,
    row.createdAt,
  );
  return result.changes === 1;
}

/** The token whose secret has `digest`, or null. */
export function* apiTokenByDigestProgram(digest: string): SqlProgram<ApiTokenRow | null> {
  const record = yield* get<ApiTokenRecord>(
    `SELECT ${columns} FROM api_tokens WHERE digest = ? AND kind = 'token'`,
    digest,
  );
  return record === undefined ? null : rowOf(record);
}

/** The token named `name`, or null. */
export function* apiTokenByNameProgram(name: string): SqlProgram<ApiTokenRow | null> {
  const record = yield* get<ApiTokenRecord>(
    `SELECT ${columns} FROM api_tokens WHERE name = ? AND kind = 'token'`,
    name,
  );
  return record === undefined ? null : rowOf(record);
}

/** Every token, oldest first. */
export function* listApiTokensProgram(): SqlProgram<ApiTokenRow[]> {
  const records = yield* all<ApiTokenRecord>(
    `SELECT ${columns} FROM api_tokens WHERE kind = 'token' ORDER BY created_at, name`,
  );
  return records.map(rowOf);
}

/** Revoke (remove) `name`; false when there was no such token. */
export function* deleteApiTokenProgram(name: string): SqlProgram<boolean> {
  const result = yield* run("DELETE FROM api_tokens WHERE name = ? AND kind = 'token'", name);
  return result.changes === 1;
}
