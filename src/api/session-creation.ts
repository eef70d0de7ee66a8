/**
 * How a session comes to be: the body of `PUT /sessions/{id}` (a new session or a fork) and
 * the record a summary and a snapshot show of it (`creation`).
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */
import type { ApprovalPolicy } from "./approvals.js";
import type { RequestConfigBody } from "./session-settings.js";

/** The fields of `PUT /sessions/{id}` for a new session (a client sends them with `kind: "new"`). */
export interface NewSessionBody {
  /** An existing absolute directory, neither the daemon's home nor inside it. */
  workspace: string;
  name?: string;
  /** Default: config.json's `active` profile. */
  provider_profile?: string;
  /** Default: the profile's model. */
  model?: string;
  system_prompt?: string;
  /** The MCP servers its agent gets (names from config.json); default: every configured one. */
  mcp_servers?: string[];
  /** Model parameters; default: the profile's. */
  request_config?: RequestConfigBody;
  /** The session's own approval policy; default: none (config.json's applies). */
  approval_policy?: ApprovalPolicy;
}

/** The fields of `PUT /sessions/{id}` for a fork (a client sends them with `kind: "fork"`). */
export interface ForkSessionBody {
  source_session_id: string;
  /** A history entry's `checkpoint_id` of the source. */
  checkpoint_id: string;
  name?: string;
}

/** Body of `PUT /sessions/{id}` (with `If-None-Match: *`). */
export type CreateSessionBody = ({ kind: "new" } & NewSessionBody) | ({ kind: "fork" } & ForkSessionBody);

/** How a session came to be: created new, or forked at a checkpoint (a summary's `creation`). */
export type SessionCreation =
  | { kind: "new" }
  | {
      kind: "fork";
      source_session_id: string;
      /** Null for forks made before the daemon stored it. */
      checkpoint_id: string | null;
      /** The hash of the source's log entry the fork branched after; null as checkpoint_id. */
      entry_hash: string | null;
    };

/**
 * A snapshot's `creation`: the summary's, plus `submitted`, the body of the `PUT` that created
 * the session exactly as the daemon accepted it (validated, nothing added: a field the client
 * left out stays out, the defaults the daemon chose are in the snapshot's other fields), so a
 * client can tell whether the session is the one it asked for. Null for sessions created before
 * the daemon stored it (schema version 6).
 */
export type SnapshotCreation = SessionCreation & { submitted: CreateSessionBody | null };
