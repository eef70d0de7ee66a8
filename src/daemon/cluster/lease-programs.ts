/**
 * The cluster's statements: node registration and heartbeats, and session leases (claim,
 * renew, release, fence check, owner lookup), as SQL programs run on PostgreSQL.
 *
 * Boundary rule: times are the database's clock (`dbNow`, milliseconds), never a node's, so
 * nodes with skewed clocks still agree on which lease has expired. An epoch only grows: a
 * claim raises it, a release only moves the expiry into the past.
 */
import { all, get, run, type SqlProgram } from "../storage/sql-program.js";

/** The database's clock in milliseconds since the epoch, as SQL. */
const dbNow = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** Nodes known to be gone: their leases count as expired. */
const stoppedNodes = "SELECT id FROM nodes WHERE stopped_at IS NOT NULL";

/** One node as the nodes table has it. */
export interface NodeRecord {
  id: string;
  url: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  stopped_at: number | null;
  public_key: string;
  last_error: string | null;
  last_error_at: number | null;
  profiles_digest: string | null;
  /** The database's clock when read. */
  now: number;
  /** How many sessions the node holds a live lease on. */
  owned: number;
}

/** A session's lease with its holder's address and whether it is still live. */
export interface LeaseRecord {
  node_id: string;
  epoch: number;
  live: boolean;
  url: string | null;
}

/**
 * Register (or re-register) this node. Other nodes registered at the same address are settled
 * by `registerNode` (node-registration.ts): a gone one is marked stopped, a live one refuses
 * this start.
 */
export function* registerNodeProgram(node: {
  id: string;
  url: string;
  pid: number;
  publicKey: string;
}): SqlProgram<void> {
  yield* run(
    `INSERT INTO nodes (id, url, pid, started_at, heartbeat_at, public_key)
     VALUES (?, ?, ?, ${dbNow}, ${dbNow}, ?)
     ON CONFLICT (id) DO UPDATE SET url = excluded.url, heartbeat_at = excluded.heartbeat_at, stopped_at = NULL`,
    node.id,
    node.url,
    node.pid,
    node.publicKey,
  );
}

/**
 * Heartbeat: the node is alive now. True when another node had marked it stopped (it could not
 * reach it); the heartbeat registers it again, so its leases count as live again.
 */
export function* heartbeatProgram(nodeId: string, status: NodeStatus = noStatus): SqlProgram<boolean> {
  const row = yield* get<{ was_stopped: boolean }>(
    `UPDATE nodes n SET heartbeat_at = ${dbNow}, stopped_at = NULL,
       last_error = ?, last_error_at = ?, profiles_digest = ?
     FROM (SELECT stopped_at FROM nodes WHERE id = ?) old
     WHERE n.id = ? RETURNING old.stopped_at IS NOT NULL AS was_stopped`,
    status.lastError?.message ?? null,
    status.lastError?.at ?? null,
    status.profilesDigest,
    nodeId,
    nodeId,
  );
  return row?.was_stopped ?? false;
}

/** What a node publishes about itself with each heartbeat. */
export interface NodeStatus {
  /** Its last error (time on its own clock, ms), or null. */
  lastError: { message: string; at: number } | null;
  /** A digest of its provider profiles (config-digest.ts), or null when unknown. */
  profilesDigest: string | null;
}

const noStatus: NodeStatus = { lastError: null, profilesDigest: null };

/** Another node's registration at the same address, with its heartbeat and the database's clock. */
export interface SameUrlNode {
  id: string;
  pid: number;
  started_at: number;
  heartbeat_at: number;
  now: number;
}

/** The nodes other than `nodeId` registered at `url` and not stopped. */
export function* nodesAtUrlProgram(url: string, nodeId: string): SqlProgram<SameUrlNode[]> {
  return yield* all<SameUrlNode>(
    `SELECT id, pid, started_at, heartbeat_at, ${dbNow} AS now FROM nodes
     WHERE url = ? AND id <> ? AND stopped_at IS NULL ORDER BY started_at, id`,
    url,
    nodeId,
  );
}

/** The node stopped (cleanly). */
export function* nodeStoppedProgram(nodeId: string): SqlProgram<void> {
  yield* run(`UPDATE nodes SET stopped_at = ${dbNow} WHERE id = ?`, nodeId);
}

/** Mark a node stopped that refused a connection (nothing listens at its address): its leases are free. */
export function* nodeGoneProgram(nodeId: string): SqlProgram<boolean> {
  return (
    (yield* run(`UPDATE nodes SET stopped_at = ${dbNow} WHERE id = ? AND stopped_at IS NULL`, nodeId))
      .changes > 0
  );
}

/**
 * Every node that is live or gone for less than `keepMs` (since it stopped, or since its last
 * heartbeat if it never said it stopped), with how many live leases it holds. Older rows stay
 * in the table (a key once registered is still shown to whoever reads them) but are not listed.
 */
export function* listNodesProgram(keepMs: number): SqlProgram<NodeRecord[]> {
  return yield* all<NodeRecord>(
    `SELECT n.*, ${dbNow} AS now,
       (SELECT count(*) FROM session_leases l WHERE l.node_id = n.id AND l.expires_at > ${dbNow} AND n.stopped_at IS NULL) AS owned
     FROM nodes n WHERE COALESCE(n.stopped_at, n.heartbeat_at) > ${dbNow} - ?
     ORDER BY n.started_at, n.id`,
    keepMs,
  );
}

/** A registered node's head-signing public key, as the `nodes` table says (not a reason to trust it). */
export interface NodeKey {
  id: string;
  url: string;
  public_key: string;
}

/** Public keys of every node ever registered. */
export function* nodeKeysProgram(): SqlProgram<NodeKey[]> {
  return yield* all<NodeKey>("SELECT id, url, public_key FROM nodes ORDER BY started_at, id");
}

/**
 * Take the session's lease if nobody holds a live one: a new epoch, valid for `leaseMs`. The
 * epoch, or null when another node holds it. (A lease this node holds already is found by
 * `acquire` first: claiming it again would raise the epoch and fence its own writes.)
 */
export function* claimLeaseProgram(
  sessionId: string,
  nodeId: string,
  leaseMs: number,
): SqlProgram<number | null> {
  const row = yield* get<{ epoch: number }>(
    `INSERT INTO session_leases (session, node_id, epoch, expires_at) VALUES (?, ?, 1, ${dbNow} + ?)
     ON CONFLICT (session) DO UPDATE SET node_id = excluded.node_id, epoch = session_leases.epoch + 1,
       expires_at = excluded.expires_at
     WHERE session_leases.expires_at <= ${dbNow} OR session_leases.node_id IN (${stoppedNodes})
     RETURNING epoch`,
    sessionId,
    nodeId,
    leaseMs,
  );
  return row?.epoch ?? null;
}

/**
 * Claim up to `limit` sessions that have work (inputs waiting, or a turn left running) and no
 * live owner. Expired leases are locked with SKIP LOCKED, so nodes scanning at once split the
 * sessions between them instead of queueing on each other. The sessions claimed, with epochs.
 */
export function* claimOrphansProgram(
  nodeId: string,
  leaseMs: number,
  limit: number,
): SqlProgram<Array<{ session: string; epoch: number }>> {
  const work = `SELECT session FROM inputs WHERE delivery = 'pending'
                UNION SELECT session FROM turns WHERE state = 'running'`;
  const expired = yield* all<{ session: string }>(
    `SELECT l.session FROM session_leases l
     WHERE (l.expires_at <= ${dbNow} OR l.node_id IN (${stoppedNodes})) AND l.session IN (${work})
     ORDER BY l.expires_at LIMIT ? FOR UPDATE OF l SKIP LOCKED`,
    limit,
  );
  const claimed: Array<{ session: string; epoch: number }> = [];
  for (const { session } of expired) {
    const row = yield* get<{ epoch: number }>(
      `UPDATE session_leases SET node_id = ?, epoch = epoch + 1, expires_at = ${dbNow} + ?
       WHERE session = ? RETURNING epoch`,
      nodeId,
      leaseMs,
      session,
    );
    if (row !== undefined) claimed.push({ session, epoch: row.epoch });
  }
  // Sessions with work that never had a lease (created before the cluster, or by SQLite).
  const unleased = yield* all<{ session: string; epoch: number }>(
    `INSERT INTO session_leases (session, node_id, epoch, expires_at)
     SELECT w.session, ?, 1, ${dbNow} + ? FROM (${work}) w
     WHERE NOT EXISTS (SELECT 1 FROM session_leases l WHERE l.session = w.session)
     LIMIT ?
     ON CONFLICT (session) DO NOTHING RETURNING session, epoch`,
    nodeId,
    leaseMs,
    limit,
  );
  return [...claimed, ...unleased];
}

/**
 * Extend the leases this node holds (`held`: sessions with the epochs it holds them under) that
 * no transaction has locked right now (SKIP LOCKED: a bulk renewal never waits, so it cannot
 * deadlock with commits holding fence locks); the sessions and epochs renewed. The caller
 * renews the skipped ones one by one. A lease row that names this node but that it no longer
 * holds (it dropped the session) is left to expire, so another node's scan can claim it.
 */
export function* renewLeasesProgram(
  nodeId: string,
  leaseMs: number,
  held: ReadonlyArray<{ session: string; epoch: number }>,
): SqlProgram<Array<{ session: string; epoch: number }>> {
  if (held.length === 0) return [];
  return yield* all<{ session: string; epoch: number }>(
    `UPDATE session_leases SET expires_at = ${dbNow} + ?
     WHERE session IN (SELECT l.session FROM session_leases l
                       JOIN json_to_recordset(?::json) AS h(session text, epoch bigint)
                         ON h.session = l.session AND h.epoch = l.epoch
                       WHERE l.node_id = ? AND l.expires_at > ${dbNow}
                       FOR UPDATE OF l SKIP LOCKED)
     RETURNING session, epoch`,
    leaseMs,
    JSON.stringify(held.map(({ session, epoch }) => ({ session, epoch }))),
    nodeId,
  );
}

/** Extend one lease (waiting for a commit that holds its fence lock); false when it is no longer ours. */
export function* renewLeaseProgram(
  sessionId: string,
  nodeId: string,
  epoch: number,
  leaseMs: number,
): SqlProgram<boolean> {
  const changed = yield* run(
    `UPDATE session_leases SET expires_at = ${dbNow} + ?
     WHERE session = ? AND node_id = ? AND epoch = ? AND expires_at > ${dbNow}`,
    leaseMs,
    sessionId,
    nodeId,
    epoch,
  );
  return changed.changes > 0;
}

/** Give a lease up at once (its epoch stays, so a later owner still raises it). */
export function* releaseLeaseProgram(sessionId: string, nodeId: string, epoch: number): SqlProgram<void> {
  yield* run(
    "UPDATE session_leases SET expires_at = 0 WHERE session = ? AND node_id = ? AND epoch = ?",
    sessionId,
    nodeId,
    epoch,
  );
}

/** The fence: the session's lease, locked against a concurrent claim until this transaction ends. */
export function* fenceProgram(sessionId: string): SqlProgram<{ node_id: string; epoch: number } | undefined> {
  return yield* get<{ node_id: string; epoch: number }>(
    "SELECT node_id, epoch FROM session_leases WHERE session = ? FOR SHARE",
    sessionId,
  );
}

/** A new session's lease, held by its creator (epoch 1); the epoch. */
export function* createdLeaseProgram(sessionId: string, nodeId: string, leaseMs: number): SqlProgram<number> {
  const row = yield* get<{ epoch: number }>(
    `INSERT INTO session_leases (session, node_id, epoch, expires_at) VALUES (?, ?, 1, ${dbNow} + ?)
     RETURNING epoch`,
    sessionId,
    nodeId,
    leaseMs,
  );
  return row!.epoch;
}

/** Who holds the session's lease, and whether it is live; null when it never had one. */
export function* leaseOfProgram(sessionId: string): SqlProgram<LeaseRecord | null> {
  const row = yield* get<LeaseRecord>(
    `SELECT l.node_id, l.epoch, (l.expires_at > ${dbNow} AND n.stopped_at IS NULL) AS live, n.url
     FROM session_leases l LEFT JOIN nodes n ON n.id = l.node_id WHERE l.session = ?`,
    sessionId,
  );
  return row ?? null;
}
