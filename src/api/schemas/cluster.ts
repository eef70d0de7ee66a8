/**
 * `GET /cluster` on the wire, as TypeBox schemas and the types derived from them: the nodes of
 * a cluster sharing one PostgreSQL database.
 *
 * Boundary rule: the schemas are the definition; each type is `Static` of its schema.
 */
import { type Static, Type } from "typebox";
import { closedObject, NullableString, namedObject, Time } from "./parts.js";

/** One node of the cluster. */
const ClusterNodeSchema = closedObject({
  id: Type.String(),
  /** How the other nodes reach it (SKEIN_NODE_URL). */
  url: Type.String(),
  pid: Type.Integer(),
  /** The node that answered. */
  self: Type.Boolean(),
  /** Heartbeat within the lease length and not stopped. */
  live: Type.Boolean(),
  started_at: Time,
  heartbeat_at: Time,
  /** How long ago its last heartbeat was, on the database's clock (a live node's stays under a third of the lease). */
  heartbeat_age_ms: Type.Integer({ minimum: 0 }),
  /** When it stopped or was marked stopped (null: it has not). */
  stopped_at: Type.Union([Time, Type.Null()]),
  /** Sessions it holds a live lease on (their turns run there). */
  sessions_owned: Type.Integer({ minimum: 0 }),
  /** The id of the key it signs session heads with (null: the registered key is unreadable). */
  key_id: NullableString,
  /** Whether the node that answered accepts heads signed by that key (its own, shared, or listed in its config.json). */
  key_trusted: Type.Boolean(),
  /** The last error the node published with a heartbeat (renewal, claim, relay, fence), or null. */
  last_error: Type.Union([closedObject({ message: Type.String(), at: Time }), Type.Null()]),
  /** A digest of its provider profiles, secrets left out (null: not published yet). */
  profiles_digest: NullableString,
  /** Whether its profiles digest equals the answering node's (a session's turns run with its owner's profiles). */
  profiles_match: Type.Boolean(),
});
export type ClusterNodeInfo = Static<typeof ClusterNodeSchema>;

/** `GET /cluster`. A daemon on SQLite is a cluster of none: `clustered` false, no nodes. */
export const ClusterInfoSchema = namedObject("ClusterInfo", {
  clustered: Type.Boolean(),
  node_id: NullableString,
  lease_seconds: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  nodes: Type.Array(ClusterNodeSchema),
});
export type ClusterInfo = Static<typeof ClusterInfoSchema>;
