/**
 * A row of `nodes` as GET /cluster shows it, from the answering node's point of view: whether
 * it is live, how far its heartbeat lags, its last error, whether the answering node trusts its
 * head-signing key and whether its provider profiles are the same.
 *
 * Boundary rule: pure; the answering node's trust and digest are passed in.
 */
import type { ClusterNodeInfo } from "../../api/cluster.js";
import { headKeyIdOf, parseHeadPublicKey } from "../../model/head-key.js";
import type { NodeRecord } from "./lease-programs.js";

/** What the answering node brings to the view. */
export interface Viewer {
  nodeId: string;
  leaseMs: number;
  trusts(keyId: string): boolean;
  /** Its own profiles digest (null: unknown). */
  profilesDigest: string | null;
}

/** One node as GET /cluster shows it. */
export function nodeView(row: NodeRecord, viewer: Viewer): ClusterNodeInfo {
  const keyId = keyIdOfText(row.public_key);
  return {
    id: row.id,
    url: row.url,
    pid: row.pid,
    self: row.id === viewer.nodeId,
    live: row.stopped_at === null && row.now - row.heartbeat_at < viewer.leaseMs,
    started_at: new Date(row.started_at).toISOString(),
    heartbeat_at: new Date(row.heartbeat_at).toISOString(),
    heartbeat_age_ms: Math.max(0, row.now - row.heartbeat_at),
    stopped_at: row.stopped_at === null ? null : new Date(row.stopped_at).toISOString(),
    sessions_owned: row.owned,
    key_id: keyId,
    key_trusted: keyId !== null && viewer.trusts(keyId),
    last_error:
      row.last_error === null
        ? null
        : { message: row.last_error, at: new Date(row.last_error_at ?? row.now).toISOString() },
    profiles_digest: row.profiles_digest,
    profiles_match: row.profiles_digest !== null && row.profiles_digest === viewer.profilesDigest,
  };
}

/** The id of a key given as PEM text, or null when the text is not a head-signing key. */
export function keyIdOfText(pem: string): string | null {
  try {
    return headKeyIdOf(parseHeadPublicKey(pem));
  } catch {
    return null;
  }
}
