/**
 * The session collection's requests and answers: listing (`GET /sessions`), creating and
 * forking (`PUT /sessions/{id}`), deleting (`DELETE /sessions/{id}`).
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */

import type { ApprovalPolicy } from "./approvals.js";
import type { RequestConfigBody } from "./session-settings.js";
import type { SessionSummary } from "./session-snapshot.js";

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

/** Which sessions `GET /sessions` lists: all (the default), the top-level ones, or one session's forks. */
export interface SessionListQuery {
  scope?: "all" | "top";
  /** List the forks of this session (not together with `scope`). */
  parent_id?: string;
}

/** `GET /sessions`, and the snapshot of the session list stream's reset. */
export interface SessionList {
  /** Newest activity first. */
  items: SessionSummary[];
}

/** `DELETE /sessions/{id}`. */
export interface DeleteAnswer {
  id: string;
  deleted: true;
}

/** The query of `GET /sessions/{id}`: how many history entries the snapshot holds (0..200, default 100). */
export interface SessionQuery {
  tail?: number;
}
