/**
 * The daemon's tables (sessions, inputs, turns, rejected_creations, schedules, api_tokens (devices
 * too), notification_outbox, budget_usage, and the cluster's nodes and session_leases) as
 * numbered migrations, one list for both backends; how they are applied and recorded is
 * daemon-schema.ts's.
 *
 * Boundary rule: the list only, append only: a released migration is never edited, a change is
 * a new version.
 */

/** One schema step: its version and the statements that take a database there from the one before. */
export interface Migration {
  version: number;
  statements: readonly string[];
}

// Append only: a released migration is never edited, a change is a new version.
// Foreign keys are deferred so one transaction may delete or insert rows in any order.
export const migrations: readonly Migration[] = [
  {
    version: 1,
    statements: [
      `CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT,
        workspace TEXT NOT NULL,
        parent_id TEXT,
        provider_profile TEXT,
        model TEXT,
        system_prompt TEXT,
        created_at INTEGER NOT NULL,
        activity_at INTEGER NOT NULL,
        input_order INTEGER NOT NULL DEFAULT 0,
        usage_prompt_tokens INTEGER NOT NULL DEFAULT 0,
        usage_completion_tokens INTEGER NOT NULL DEFAULT 0,
        usage_cached_prompt_tokens INTEGER NOT NULL DEFAULT 0,
        usage_total_tokens INTEGER NOT NULL DEFAULT 0,
        preview_text TEXT NOT NULL DEFAULT '',
        preview_truncated INTEGER NOT NULL DEFAULT 0,
        transcript_count INTEGER NOT NULL DEFAULT 0
      )`,
      "CREATE INDEX sessions_by_activity ON sessions (activity_at DESC, id DESC)",
      `CREATE TABLE turns (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL REFERENCES sessions (id) DEFERRABLE INITIALLY DEFERRED,
        state TEXT NOT NULL CHECK (state IN ('running', 'completed', 'interrupted', 'abandoned', 'failed')),
        started_at INTEGER NOT NULL,
        ended_at INTEGER,
        input_ids TEXT NOT NULL,
        error TEXT
      )`,
      "CREATE INDEX turns_by_session_state ON turns (session, state)",
      // At most one running turn per session: a second start is a bug, not a state.
      "CREATE UNIQUE INDEX turns_one_running ON turns (session) WHERE state = 'running'",
      `CREATE TABLE inputs (
        id TEXT PRIMARY KEY,
        session TEXT NOT NULL REFERENCES sessions (id) DEFERRABLE INITIALLY DEFERRED,
        kind TEXT NOT NULL,
        intent TEXT NOT NULL,
        client_id TEXT,
        accepted_at INTEGER NOT NULL,
        acceptance_order INTEGER NOT NULL,
        delivery TEXT NOT NULL CHECK (delivery IN ('pending', 'committed', 'cancelled')),
        transcript_position INTEGER,
        turn_id TEXT,
        UNIQUE (session, acceptance_order)
      )`,
      "CREATE INDEX inputs_by_delivery ON inputs (session, delivery, acceptance_order)",
    ],
  },
  {
    version: 2,
    statements: [
      // Where a fork started: the checkpoint it was asked for and the hash of the source entry.
      // Null for sessions that are not forks and for forks made before this version.
      "ALTER TABLE sessions ADD COLUMN fork_checkpoint_id TEXT",
      "ALTER TABLE sessions ADD COLUMN fork_entry_hash TEXT",
      "CREATE INDEX sessions_by_parent ON sessions (parent_id, activity_at DESC, id DESC)",
      // Creations refused for what they asked (a bad workspace, an unknown checkpoint), so a
      // later GET of the id can say why it does not exist. Not session data: no `session` column.
      `CREATE TABLE rejected_creations (
        id TEXT PRIMARY KEY,
        rejected_at INTEGER NOT NULL,
        status INTEGER NOT NULL,
        code TEXT NOT NULL,
        detail TEXT NOT NULL
      )`,
      "CREATE INDEX rejected_creations_by_time ON rejected_creations (rejected_at)",
    ],
  },
  {
    version: 3,
    statements: [
      // The MCP servers a session uses (a JSON array of names from config.json's mcpServers).
      // Null for sessions created before this version: they use none.
      "ALTER TABLE sessions ADD COLUMN mcp_servers TEXT",
    ],
  },
  {
    version: 4,
    statements: [
      // The daemons of a cluster sharing this database (PostgreSQL only; unused on SQLite):
      // each registers at start, heartbeats, and publishes its head-signing public key so the
      // others can check the heads it signed. Rows stay after a node stops (its key still counts).
      `CREATE TABLE nodes (
        id TEXT PRIMARY KEY,
        url TEXT NOT NULL,
        pid INTEGER NOT NULL,
        started_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL,
        stopped_at INTEGER,
        public_key TEXT NOT NULL
      )`,
      // Which node runs a session's turns, until when, under which epoch. The epoch only grows
      // (a released lease keeps its row with an expiry in the past); every commit of the owner
      // checks it. Session data: deleted with the session.
      `CREATE TABLE session_leases (
        session TEXT PRIMARY KEY,
        node_id TEXT NOT NULL,
        epoch INTEGER NOT NULL,
        expires_at INTEGER NOT NULL
      )`,
      "CREATE INDEX session_leases_by_node ON session_leases (node_id)",
    ],
  },
  {
    version: 5,
    statements: [
      // When a user's interrupt of a running turn was acknowledged (ms), written before the
      // interrupt's answer: a turn a crash cuts short after it ends interrupted at recovery.
      // Null: none (and for every turn before this version).
      "ALTER TABLE turns ADD COLUMN interrupt_requested_at INTEGER",
    ],
  },
  {
    version: 6,
    statements: [
      // The body of the PUT that created the session, as accepted (JSON), echoed by snapshots.
      // Null for sessions created before this version.
      "ALTER TABLE sessions ADD COLUMN creation_request TEXT",
    ],
  },
  {
    version: 7,
    statements: [
      // What a node publishes about itself with each heartbeat, for GET /cluster and the other
      // nodes: its last error (and when), and a digest of its provider profiles (secrets left
      // out), so nodes whose profiles differ are told apart. Null until the node sets them.
      "ALTER TABLE nodes ADD COLUMN last_error TEXT",
      "ALTER TABLE nodes ADD COLUMN last_error_at INTEGER",
      "ALTER TABLE nodes ADD COLUMN profiles_digest TEXT",
    ],
  },
  {
    version: 8,
    statements: [
      // A cluster's shared config (PostgreSQL only; unused on SQLite), laid over each node's
      // config.json: one row per entry of a section (`providers`, `mcpServers`, `settings`;
      // other sections are kept for newer daemons and ignored). `value` is the entry's JSON,
      // null once removed: the row stays so the config's version, the highest `version`, only grows.
      `CREATE TABLE cluster_config (
        section TEXT NOT NULL,
        name TEXT NOT NULL,
        value TEXT,
        version INTEGER NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (section, name)
      )`,
    ],
  },
  {
    version: 9,
    statements: [
      // Schedules (both backends): each firing admits an input whose id derives from the
      // schedule's id and the firing's time (daemon/schedule/firing-id.ts). `cron` or `at_time`
      // is set, and `session_id` or `new_session` (JSON: workspace and profile). `next_fire_at`
      // is null once nothing more will fire; it moves only by compare-and-set.
      `CREATE TABLE schedules (
        id TEXT PRIMARY KEY,
        cron TEXT,
        at_time INTEGER,
        timezone TEXT,
        session_id TEXT,
        new_session TEXT,
        prompt TEXT NOT NULL,
        missed TEXT NOT NULL CHECK (missed IN ('skip', 'run_once')),
        paused INTEGER NOT NULL DEFAULT 0,
        next_fire_at INTEGER,
        last_fired_at INTEGER,
        last_input_id TEXT,
        last_session_id TEXT,
        created_at INTEGER NOT NULL
      )`,
      "CREATE INDEX schedules_by_next_firing ON schedules (next_fire_at)",
    ],
  },
  {
    version: 10,
    statements: [
      // A `task` call's child session (daemon/task/): the parent's call that started it and the
      // agent it runs as; `parent_id` names the parent. Null for every other session.
      "ALTER TABLE sessions ADD COLUMN parent_call_id TEXT",
      "ALTER TABLE sessions ADD COLUMN agent TEXT",
    ],
  },
  {
    version: 11,
    statements: [
      // Named API tokens (both backends, so every node sees a revocation at once): the SHA-256
      // digest of each secret, never the secret. `session_id`: the one session it may reach.
      `CREATE TABLE api_tokens (
        name TEXT PRIMARY KEY,
        digest TEXT NOT NULL UNIQUE,
        role TEXT NOT NULL CHECK (role IN ('viewer', 'approver', 'driver', 'admin')),
        session_id TEXT,
        created_at INTEGER NOT NULL
      )`,
      // Who sent each input (the token's name) and from which address (docs/http-api.md).
      "ALTER TABLE inputs ADD COLUMN sent_by TEXT",
      "ALTER TABLE inputs ADD COLUMN sent_from TEXT",
    ],
  },
  {
    version: 12,
    statements: [
      // The notification outbox (daemon/notify): one row per webhook delivery still owed,
      // written in the commit of the log entry it tells of, deleted once delivered. `id` is
      // the event's (the same for every target, stable across retries); `body` is the exact
      // JSON posted. A node delivering a row claims it until `claimed_until`; `gave_up_at` is
      // set when delivery stopped for good (kept, with `last_error`, for the operator).
      // Not session data: a deleted session's last events are still delivered.
      `CREATE TABLE notification_outbox (
        id TEXT NOT NULL,
        target_url TEXT NOT NULL,
        session_id TEXT NOT NULL,
        event TEXT NOT NULL,
        body TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0,
        next_attempt_at INTEGER NOT NULL,
        claimed_by TEXT,
        claimed_until INTEGER,
        gave_up_at INTEGER,
        last_error TEXT,
        PRIMARY KEY (id, target_url)
      )`,
      "CREATE INDEX notification_outbox_due ON notification_outbox (next_attempt_at) WHERE gave_up_at IS NULL",
    ],
  },
  {
    version: 13,
    statements: [
      // What model requests used, per session, UTC day (days since the epoch), profile and
      // schedule ('' for none): written with the log entry that carries the usage
      // (budget-usage-table.ts), summed by budget checks. `session_id`, not `session`: a deleted
      // session's spending still counts toward its profile's day.
      `CREATE TABLE budget_usage (
        session_id TEXT NOT NULL,
        day INTEGER NOT NULL,
        profile TEXT NOT NULL,
        schedule TEXT NOT NULL,
        tokens INTEGER NOT NULL,
        cost_nanos INTEGER NOT NULL,
        requests INTEGER NOT NULL,
        PRIMARY KEY (session_id, day, profile, schedule)
      )`,
      // Covering: a profile's or a schedule's sum reads the index alone.
      "CREATE INDEX budget_usage_by_profile ON budget_usage (profile, day, tokens, cost_nanos)",
      "CREATE INDEX budget_usage_by_schedule ON budget_usage (schedule, day, tokens, cost_nanos)",
      // A schedule's budget (JSON, config.json's shape), null for none.
      "ALTER TABLE schedules ADD COLUMN budget TEXT",
    ],
  },
  {
    version: 14,
    statements: [
      // Devices (device-table.ts): a named token of kind `device` whose secret is a browser's
      // cookie, set by spending a one-time pairing code (its digest and expiry here, cleared
      // when spent). `paired_at`: when a browser spent it; `last_seen_at`: its latest request
      // (at most once a minute). Tokens keep kind `token` and never have a pairing.
      "ALTER TABLE api_tokens ADD COLUMN kind TEXT NOT NULL DEFAULT 'token'",
      "ALTER TABLE api_tokens ADD COLUMN pairing_digest TEXT",
      "ALTER TABLE api_tokens ADD COLUMN pairing_expires_at INTEGER",
      "ALTER TABLE api_tokens ADD COLUMN paired_at INTEGER",
      "ALTER TABLE api_tokens ADD COLUMN last_seen_at INTEGER",
      "CREATE UNIQUE INDEX api_tokens_pairing ON api_tokens (pairing_digest)",
    ],
  },
  {
    version: 15,
    statements: [
      // The scheduler's two reads each tick (the due schedules, the earliest firing) name only
      // schedules not paused: an index of those alone keeps a tick's cost independent of how
      // many schedules are paused (a paused one keeps its past `next_fire_at`, which the old
      // index made every tick step over).
      "DROP INDEX schedules_by_next_firing",
      "CREATE INDEX schedules_active_by_next_firing ON schedules (next_fire_at) WHERE paused = 0",
    ],
  },
  {
    version: 16,
    statements: [
      // Fewer index pages per turn (each a page of write-ahead log and its copy back on SQLite),
      // the same plans for every query. Only pending inputs are ever looked up by their
      // delivery: an input a turn delivers as it is admitted (a turn on an idle session) no
      // longer writes an index entry it would never be found by.
      "DROP INDEX inputs_by_delivery",
      "CREATE INDEX inputs_pending ON inputs (session, acceptance_order) WHERE delivery = 'pending'",
      // A turn's state is looked up only as 'running' (turns_one_running serves that); the
      // session alone is what deleting a session's rows needs, and a turn's end leaves it alone.
      "DROP INDEX turns_by_session_state",
      "CREATE INDEX turns_by_session ON turns (session)",
      // A schedule's sum never names '' (turns of no schedule): their usage, most of it, is
      // added without an entry to move here (the sum's query says `schedule <> ''`).
      "DROP INDEX budget_usage_by_schedule",
      "CREATE INDEX budget_usage_by_schedule ON budget_usage (schedule, day, tokens, cost_nanos) WHERE schedule <> ''",
    ],
  },
  {
    version: 17,
    statements: [
      // `GET /schedules` pages by (created_at, id), oldest first (schedules-table.ts): a page
      // is a range of this index, not a sort of every schedule.
      "CREATE INDEX schedules_by_creation ON schedules (created_at, id)",
    ],
  },
  {
    version: 18,
    statements: [
      // A session's own budget (its log's latest `budget_changed`), for its task children's checks.
      "ALTER TABLE sessions ADD COLUMN own_budget TEXT",
    ],
  },
];
