/**
 * The `sessions` table: one row per session with its configuration, activity time, input order
 * counter, usage totals and preview.
 *
 * Boundary rule: each operation is a SQL program (sql-program.ts) that either backend runs in
 * its caller's transaction, plus a synchronous wrapper on a better-sqlite3 connection. Rows use camelCase; the nested
 * `usage` and `preview` objects are already in their snake_case wire shape.
 */
import type { CreateSessionBody, SessionCreation } from "../../api/session-creation.js";
import type { SessionPreview, SessionUsage } from "../../api/session-snapshot.js";
import type { Budget } from "../../model/budget.js";
import { unreachable } from "../../model/unreachable.js";
import type { Usage } from "../../model/usage.js";
import { SessionExistsError } from "../errors.js";
import type { DaemonDatabase } from "./database.js";
import { updateSessionRowProgram } from "./session-row-update.js";
import { all, dialect, get, isUniqueViolation, run, type SqlProgram, type SqlValue } from "./sql-program.js";
import { runSqlite, runSqliteAtomic } from "./sqlite-runner.js";

/** Which sessions a listing returns: all, the top-level ones (no parent), or a session's forks. */
export type SessionListFilter = { kind: "all" } | { kind: "top" } | { kind: "children"; parentId: string };

export interface SessionRow {
  id: string;
  name: string | null;
  workspace: string;
  parentId: string | null;
  providerProfile: string | null;
  model: string | null;
  systemPrompt: string | null;
  /** ms since the epoch. */
  createdAt: number;
  activityAt: number;
  /** The last acceptance_order given to an input of this session (0: none yet). */
  inputOrder: number;
  usage: SessionUsage;
  preview: SessionPreview;
  creation: SessionCreation;
  /**
   * The body of the PUT that created the session, as JSON text (parsed only for a snapshot, not
   * for every row a listing reads); null for sessions created before it was stored.
   */
  creationRequest: string | null;
  /** Names of the MCP servers whose tools the session's agent gets (empty: none). */
  mcpServers: string[];
  /** A `task` call's child: the parent's call that started it, and its agent (null otherwise). */
  task: ChildTask | null;
  /** Its own budget, as its log's latest `budget_changed` says (null: none, or not yet known: see the schema). */
  ownBudget: Budget | null;
}

/** What a child session of a `task` call records of it (its parent is the row's `parentId`). */
export interface ChildTask {
  parentCallId: string;
  agent: string;
}

/** What a caller supplies to create a session row; the rest starts at zero. */
export interface NewSession {
  id: string;
  name?: string | null;
  workspace: string;
  parentId?: string | null;
  providerProfile?: string | null;
  model?: string | null;
  systemPrompt?: string | null;
  createdAt: number;
  /** For a fork: the checkpoint it was asked for and the hash of the source entry it branched after. */
  fork?: { checkpointId: string; entryHash: string };
  mcpServers?: readonly string[];
  /** The creation request it was made by (none: a session made without one, as in tests). */
  creationRequest?: CreateSessionBody;
  /** A `task` call's child (with `parentId` the parent). */
  task?: ChildTask;
  /** Its preview, stored with the row (none: empty, until its entries set one). */
  preview?: SessionPreview;
}

interface SessionRecord {
  id: string;
  name: string | null;
  workspace: string;
  parent_id: string | null;
  provider_profile: string | null;
  model: string | null;
  system_prompt: string | null;
  created_at: number;
  activity_at: number;
  input_order: number;
  usage_prompt_tokens: number;
  usage_completion_tokens: number;
  usage_cached_prompt_tokens: number;
  usage_total_tokens: number;
  preview_text: string;
  preview_truncated: number;
  transcript_count: number;
  fork_checkpoint_id: string | null;
  fork_entry_hash: string | null;
  mcp_servers: string | null;
  creation_request: string | null;
  parent_call_id: string | null;
  agent: string | null;
  own_budget: string | null;
}

function rowOf(record: SessionRecord): SessionRow {
  return {
    id: record.id,
    name: record.name,
    workspace: record.workspace,
    parentId: record.parent_id,
    providerProfile: record.provider_profile,
    model: record.model,
    systemPrompt: record.system_prompt,
    createdAt: record.created_at,
    activityAt: record.activity_at,
    inputOrder: record.input_order,
    usage: {
      prompt_tokens: record.usage_prompt_tokens,
      completion_tokens: record.usage_completion_tokens,
      cached_prompt_tokens: record.usage_cached_prompt_tokens,
      total_tokens: record.usage_total_tokens,
    },
    preview: {
      text: record.preview_text,
      transcript_count: record.transcript_count,
      truncated: record.preview_truncated === 1,
    },
    creation:
      record.parent_id === null || (record.parent_call_id !== null && record.fork_checkpoint_id === null)
        ? { kind: "new" }
        : {
            kind: "fork",
            source_session_id: record.parent_id,
            checkpoint_id: record.fork_checkpoint_id,
            entry_hash: record.fork_entry_hash,
          },
    creationRequest: record.creation_request,
    mcpServers: record.mcp_servers === null ? [] : (JSON.parse(record.mcp_servers) as string[]),
    task:
      record.parent_call_id === null
        ? null
        : { parentCallId: record.parent_call_id, agent: record.agent ?? "" },
    ownBudget: record.own_budget === null ? null : (JSON.parse(record.own_budget) as Budget),
  };
}

/** Insert a new session row (activity = creation time); throws `SessionExistsError` if the id is taken. */
export function* insertSessionProgram(session: NewSession): SqlProgram<SessionRow> {
  // The row as stored, built here rather than handed back (RETURNING *): every column is one of
  // these values or a default of 0, so reading back the system prompt and the creation request
  // would only copy them again.
  const record: SessionRecord = {
    id: session.id,
    name: session.name ?? null,
    workspace: session.workspace,
    parent_id: session.parentId ?? null,
    provider_profile: session.providerProfile ?? null,
    model: session.model ?? null,
    system_prompt: session.systemPrompt ?? null,
    created_at: session.createdAt,
    activity_at: session.createdAt,
    input_order: 0,
    usage_prompt_tokens: 0,
    usage_completion_tokens: 0,
    usage_cached_prompt_tokens: 0,
    usage_total_tokens: 0,
    preview_text: session.preview?.text ?? "",
    preview_truncated: session.preview?.truncated === true ? 1 : 0,
    transcript_count: session.preview?.transcript_count ?? 0,
    fork_checkpoint_id: session.fork?.checkpointId ?? null,
    fork_entry_hash: session.fork?.entryHash ?? null,
    mcp_servers: JSON.stringify(session.mcpServers ?? []),
    creation_request: session.creationRequest === undefined ? null : JSON.stringify(session.creationRequest),
    parent_call_id: session.task?.parentCallId ?? null,
    agent: session.task?.agent ?? null,
    own_budget: null,
  };
  try {
    yield* run(
      `INSERT INTO sessions (id, name, workspace, parent_id, provider_profile, model, system_prompt, created_at,
         activity_at, fork_checkpoint_id, fork_entry_hash, mcp_servers, creation_request, parent_call_id, agent,
         preview_text, preview_truncated, transcript_count)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      record.id,
      record.name,
      record.workspace,
      record.parent_id,
      record.provider_profile,
      record.model,
      record.system_prompt,
      record.created_at,
      record.activity_at,
      record.fork_checkpoint_id,
      record.fork_entry_hash,
      record.mcp_servers,
      record.creation_request,
      record.parent_call_id,
      record.agent,
      record.preview_text,
      record.preview_truncated,
      record.transcript_count,
    );
  } catch (error) {
    if (isUniqueViolation(error)) throw new SessionExistsError(session.id);
    throw error;
  }
  return rowOf(record);
}

/** `insertSessionProgram` on a SQLite connection. */
export function insertSession(db: DaemonDatabase, session: NewSession): SessionRow {
  return runSqliteAtomic(db, insertSessionProgram(session));
}

/** The session row, or null when there is none. */
export function* getSessionProgram(sessionId: string): SqlProgram<SessionRow | null> {
  const record = yield* get<SessionRecord>("SELECT * FROM sessions WHERE id = ?", sessionId);
  return record === undefined ? null : rowOf(record);
}

/** `getSessionProgram` on a SQLite connection. */
export function getSession(db: DaemonDatabase, sessionId: string): SessionRow | null {
  return runSqlite(db, getSessionProgram(sessionId));
}

/** Where a listing page starts: after the row with this activity time and id (keyset, see `SessionPage`). */
interface SessionListKey {
  activityAt: number;
  id: string;
}

/** One page of a listing: at most `limit` rows, those after `after` in listing order (none: from the top). */
export interface SessionPage {
  limit: number;
  after?: SessionListKey;
}

/**
 * The session rows `filter` selects (default: all), newest activity first (ties: newest id
 * first); with `page`, only that page. A page is a keyset range on the listing order, so its
 * cost does not grow with the rows before it (indexes sessions_by_activity, sessions_by_parent).
 */
export function* listSessionsProgram(
  filter: SessionListFilter = { kind: "all" },
  page?: SessionPage,
): SqlProgram<SessionRow[]> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  switch (filter.kind) {
    case "all":
      break;
    case "top":
      where.push("parent_id IS NULL");
      break;
    case "children":
      where.push("parent_id = ?");
      params.push(filter.parentId);
      break;
    default:
      unreachable(filter, "unknown session filter");
  }
  if (page?.after !== undefined) {
    // The range on activity_at alone is what both backends seek the index with (PostgreSQL would
    // otherwise filter every row above the page); the OR then drops the rows of the tie before it.
    where.push("activity_at <= ?", "(activity_at < ? OR id < ?)");
    params.push(page.after.activityAt, page.after.activityAt, page.after.id);
  }
  const condition = where.length === 0 ? "" : `WHERE ${where.join(" AND ")}`;
  const limit = page === undefined ? "" : ` LIMIT ${Math.max(0, Math.trunc(page.limit))}`;
  const records = yield* all<SessionRecord>(
    `SELECT * FROM sessions ${condition} ORDER BY activity_at DESC, id DESC${limit}`,
    ...params,
  );
  return records.map(rowOf);
}

/** `listSessionsProgram` on a SQLite connection. */
export function listSessions(
  db: DaemonDatabase,
  filter: SessionListFilter = { kind: "all" },
  page?: SessionPage,
): SessionRow[] {
  return runSqlite(db, listSessionsProgram(filter, page));
}

/** Whether `row` is one of the sessions `filter` selects. */
export function sessionMatches(row: Pick<SessionRow, "parentId">, filter: SessionListFilter): boolean {
  switch (filter.kind) {
    case "all":
      return true;
    case "top":
      return row.parentId === null;
    case "children":
      return row.parentId === filter.parentId;
    default:
      unreachable(filter, "unknown session filter");
  }
}

/** Move the session's activity time forward to `at` (never backwards); false if there is no such session. */
export function touchActivityProgram(sessionId: string, at: number): SqlProgram<boolean> {
  return updateSessionRowProgram(sessionId, { activityAt: at });
}

/** `touchActivityProgram` on a SQLite connection. */
export function touchActivity(db: DaemonDatabase, sessionId: string, at: number): boolean {
  return runSqlite(db, touchActivityProgram(sessionId, at));
}

/**
 * Add one request's usage to the session's totals: prompt = input_tokens (cached included),
 * completion = output_tokens, cached_prompt = cache_read_tokens, total = total_tokens or, when
 * the provider gave none, prompt + completion. False if there is no such session.
 */
function updateUsageProgram(sessionId: string, usage: Usage): SqlProgram<boolean> {
  return updateSessionRowProgram(sessionId, { usage });
}

/** `updateUsageProgram` on a SQLite connection. */
export function updateUsage(db: DaemonDatabase, sessionId: string, usage: Usage): boolean {
  return runSqlite(db, updateUsageProgram(sessionId, usage));
}

/** Store the session's preview (text, truncated flag and transcript_count); false if there is no such session. */
export function setPreviewProgram(sessionId: string, preview: SessionPreview): SqlProgram<boolean> {
  return updateSessionRowProgram(sessionId, { preview });
}

/** `setPreviewProgram` on a SQLite connection. */
export function setPreview(db: DaemonDatabase, sessionId: string, preview: SessionPreview): boolean {
  return runSqlite(db, setPreviewProgram(sessionId, preview));
}

/** The log store's own tables: its entries are deleted through the store, never here. */
const logTables = new Set(["transcript", "transcript_heads", "transcript_checkpoints"]);

/**
 * Names of every daemon table with a `session` column, found in the schema (so tables added
 * later are included), the log's tables excepted.
 */
export function* tablesWithSessionColumnProgram(): SqlProgram<string[]> {
  const rows =
    (yield* dialect()) === "sqlite"
      ? yield* all<{ name: string }>(
          `SELECT m.name AS name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
           WHERE m.type = 'table' AND c.name = 'session' ORDER BY m.name`,
        )
      : yield* all<{ name: string }>(
          `SELECT table_name AS name FROM information_schema.columns
           WHERE table_schema = current_schema() AND column_name = 'session' ORDER BY table_name`,
        );
  return rows.map((row) => row.name).filter((name) => !logTables.has(name));
}

/** `tablesWithSessionColumnProgram` on a SQLite connection. */
export function tablesWithSessionColumn(db: DaemonDatabase): string[] {
  return runSqlite(db, tablesWithSessionColumnProgram());
}

/**
 * Delete every row of the session, in every daemon table with a `session` column, and its
 * `sessions` row (the log is the store's to delete). `tables` is that list when the caller
 * keeps it (`tablesWithSessionColumnProgram`: the schema changes only by migrations); without
 * it the schema is read. Returns how many rows were deleted (0: the session was unknown).
 */
export function* deleteSessionRowsProgram(sessionId: string, tables?: readonly string[]): SqlProgram<number> {
  let deleted = 0;
  for (const table of tables ?? (yield* tablesWithSessionColumnProgram())) {
    deleted += (yield* run(`DELETE FROM ${quoteIdentifier(table)} WHERE session = ?`, sessionId)).changes;
  }
  deleted += (yield* run("DELETE FROM sessions WHERE id = ?", sessionId)).changes;
  return deleted;
}

/** `deleteSessionRowsProgram` on a SQLite connection, in one transaction. */
export function deleteSessionRows(db: DaemonDatabase, sessionId: string): number {
  return runSqliteAtomic(db, deleteSessionRowsProgram(sessionId));
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
