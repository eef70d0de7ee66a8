/**
 * The `sessions` table: one row per session with its configuration, activity time, input order
 * counter, usage totals and preview.
 *
 * Boundary rule: synchronous functions over one better-sqlite3 connection, so the caller can
 * compose them with other writes inside one `db.transaction`. Rows use camelCase; the nested
 * `usage` and `preview` objects are already in their snake_case wire shape.
 */
import type { SessionCreation, SessionPreview, SessionUsage } from "../../api/session-snapshot.js";
import type { Usage } from "../../model/usage.js";
import { SessionExistsError } from "../errors.js";
import { type DaemonDatabase, hasSqliteCode } from "./database.js";
import { cachedStatements, type StatementCache } from "./statement-cache.js";

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
  /** Names of the MCP servers whose tools the session's agent gets (empty: none). */
  mcpServers: string[];
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
}

const cache: StatementCache<ReturnType<typeof prepare>> = new WeakMap();

function prepare(db: DaemonDatabase) {
  return {
    insert: db.prepare(
      `INSERT INTO sessions (id, name, workspace, parent_id, provider_profile, model, system_prompt, created_at,
         activity_at, fork_checkpoint_id, fork_entry_hash, mcp_servers)
       VALUES (@id, @name, @workspace, @parent_id, @provider_profile, @model, @system_prompt, @created_at,
         @created_at, @fork_checkpoint_id, @fork_entry_hash, @mcp_servers)`,
    ),
    get: db.prepare("SELECT * FROM sessions WHERE id = ?"),
    list: db.prepare("SELECT * FROM sessions ORDER BY activity_at DESC, id DESC"),
    listTop: db.prepare("SELECT * FROM sessions WHERE parent_id IS NULL ORDER BY activity_at DESC, id DESC"),
    listChildren: db.prepare("SELECT * FROM sessions WHERE parent_id = ? ORDER BY activity_at DESC, id DESC"),
    touch: db.prepare("UPDATE sessions SET activity_at = max(activity_at, ?) WHERE id = ?"),
    addUsage: db.prepare(
      `UPDATE sessions SET
         usage_prompt_tokens = usage_prompt_tokens + @prompt,
         usage_completion_tokens = usage_completion_tokens + @completion,
         usage_cached_prompt_tokens = usage_cached_prompt_tokens + @cached,
         usage_total_tokens = usage_total_tokens + @total
       WHERE id = @id`,
    ),
    setPreview: db.prepare(
      "UPDATE sessions SET preview_text = ?, preview_truncated = ?, transcript_count = ? WHERE id = ?",
    ),
    setProvider: db.prepare("UPDATE sessions SET provider_profile = ?, model = ? WHERE id = ?"),
    tablesWithSession: db.prepare(
      `SELECT m.name AS name FROM sqlite_master AS m, pragma_table_info(m.name) AS c
       WHERE m.type = 'table' AND c.name = 'session' ORDER BY m.name`,
    ),
    deleteSession: db.prepare("DELETE FROM sessions WHERE id = ?"),
  };
}

function statements(db: DaemonDatabase) {
  return cachedStatements(cache, db, prepare);
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
      record.parent_id === null
        ? { kind: "new" }
        : {
            kind: "fork",
            source_session_id: record.parent_id,
            checkpoint_id: record.fork_checkpoint_id,
            entry_hash: record.fork_entry_hash,
          },
    mcpServers: record.mcp_servers === null ? [] : (JSON.parse(record.mcp_servers) as string[]),
  };
}

/** Insert a new session row (activity = creation time); throws `SessionExistsError` if the id is taken. */
export function insertSession(db: DaemonDatabase, session: NewSession): SessionRow {
  try {
    statements(db).insert.run({
      id: session.id,
      name: session.name ?? null,
      workspace: session.workspace,
      parent_id: session.parentId ?? null,
      provider_profile: session.providerProfile ?? null,
      model: session.model ?? null,
      system_prompt: session.systemPrompt ?? null,
      created_at: session.createdAt,
      fork_checkpoint_id: session.fork?.checkpointId ?? null,
      fork_entry_hash: session.fork?.entryHash ?? null,
      mcp_servers: JSON.stringify(session.mcpServers ?? []),
    });
  } catch (error) {
    if (hasSqliteCode(error, "SQLITE_CONSTRAINT_PRIMARYKEY")) throw new SessionExistsError(session.id);
    throw error;
  }
  return getSession(db, session.id)!;
}

/** The session row, or null when there is none. */
export function getSession(db: DaemonDatabase, sessionId: string): SessionRow | null {
  const record = statements(db).get.get(sessionId) as SessionRecord | undefined;
  return record === undefined ? null : rowOf(record);
}

/** The session rows `filter` selects (default: all), newest activity first (ties: newest id first). */
export function listSessions(db: DaemonDatabase, filter: SessionListFilter = { kind: "all" }): SessionRow[] {
  const all = statements(db);
  let records: unknown[];
  switch (filter.kind) {
    case "all":
      records = all.list.all();
      break;
    case "top":
      records = all.listTop.all();
      break;
    case "children":
      records = all.listChildren.all(filter.parentId);
      break;
    default: {
      const unknown: never = filter;
      throw new Error(`unknown session filter ${JSON.stringify(unknown)}`);
    }
  }
  return (records as SessionRecord[]).map(rowOf);
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
    default: {
      const unknown: never = filter;
      throw new Error(`unknown session filter ${JSON.stringify(unknown)}`);
    }
  }
}

/** Move the session's activity time forward to `at` (never backwards); false if there is no such session. */
export function touchActivity(db: DaemonDatabase, sessionId: string, at: number): boolean {
  return statements(db).touch.run(at, sessionId).changes > 0;
}

/**
 * Add one request's usage to the session's totals: prompt = input_tokens (cached included),
 * completion = output_tokens, cached_prompt = cache_read_tokens, total = total_tokens or, when
 * the provider gave none, prompt + completion. False if there is no such session.
 */
export function updateUsage(db: DaemonDatabase, sessionId: string, usage: Usage): boolean {
  const prompt = usage.input_tokens ?? 0;
  const completion = usage.output_tokens ?? 0;
  return (
    statements(db).addUsage.run({
      id: sessionId,
      prompt,
      completion,
      cached: usage.cache_read_tokens ?? 0,
      total: usage.total_tokens ?? prompt + completion,
    }).changes > 0
  );
}

/** Store the session's preview (text, truncated flag and transcript_count); false if there is no such session. */
export function setPreview(db: DaemonDatabase, sessionId: string, preview: SessionPreview): boolean {
  return (
    statements(db).setPreview.run(
      preview.text,
      preview.truncated ? 1 : 0,
      preview.transcript_count,
      sessionId,
    ).changes > 0
  );
}

/** Store the session's provider profile and model (null: the defaults); false if there is no such session. */
export function setProvider(
  db: DaemonDatabase,
  sessionId: string,
  provider: { providerProfile: string | null; model: string | null },
): boolean {
  return statements(db).setProvider.run(provider.providerProfile, provider.model, sessionId).changes > 0;
}

/** The log store's own tables: its entries are deleted through the store, never here. */
const logTables = new Set(["transcript", "transcript_heads"]);

/**
 * Names of every daemon table with a `session` column, found in the schema (so tables added
 * later are included), the log's tables excepted.
 */
export function tablesWithSessionColumn(db: DaemonDatabase): string[] {
  return (statements(db).tablesWithSession.all() as { name: string }[])
    .map((row) => row.name)
    .filter((name) => !logTables.has(name));
}

/**
 * Delete every row of the session, in every daemon table with a `session` column, and its
 * `sessions` row, in one transaction (the log is the store's to delete). Returns how many rows
 * were deleted (0: the session was unknown).
 */
export function deleteSessionRows(db: DaemonDatabase, sessionId: string): number {
  const remove = db.transaction(() => {
    let deleted = 0;
    for (const table of tablesWithSessionColumn(db)) {
      // Not cached: the set of tables can grow.
      deleted += db.prepare(`DELETE FROM ${quoteIdentifier(table)} WHERE session = ?`).run(sessionId).changes;
    }
    deleted += statements(db).deleteSession.run(sessionId).changes;
    return deleted;
  });
  return remove.immediate();
}

function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
