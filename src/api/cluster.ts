/**
 * The wire shape of `GET /cluster`: the nodes of a cluster sharing one PostgreSQL database.
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */

/** One node of the cluster. */
export interface ClusterNodeInfo {
  id: string;
  /** How the other nodes reach it (SKEIN_NODE_URL). */
  url: string;
  pid: number;
  /** The node that answered. */
  self: boolean;
  /** Heartbeat within the lease length and not stopped. */
  live: boolean;
  started_at: string;
  heartbeat_at: string;
  /** How long ago its last heartbeat was, on the database's clock (a live node's stays under a third of the lease). */
  heartbeat_age_ms: number;
  /** When it stopped or was marked stopped (null: it has not). */
  stopped_at: string | null;
  /** Sessions it holds a live lease on (their turns run there). */
  sessions_owned: number;
  /** The id of the key it signs session heads with (null: the registered key is unreadable). */
  key_id: string | null;
  /** Whether the node that answered accepts heads signed by that key (its own, shared, or listed in its config.json). */
  key_trusted: boolean;
  /** The last error the node published with a heartbeat (renewal, claim, relay, fence), or null. */
  last_error: { message: string; at: string } | null;
  /** A digest of its provider profiles, secrets left out (null: not published yet). */
  profiles_digest: string | null;
  /** Whether its profiles digest equals the answering node's (a session's turns run with its owner's profiles). */
  profiles_match: boolean;
}

/** `GET /cluster`. A daemon on SQLite is a cluster of none: `clustered` false, no nodes. */
export interface ClusterInfo {
  clustered: boolean;
  node_id: string | null;
  lease_seconds: number | null;
  nodes: ClusterNodeInfo[];
}
