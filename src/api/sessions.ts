/**
 * The session collection's requests and answers: listing (`GET /sessions`), creating and
 * forking (`PUT /sessions/{id}`), deleting (`DELETE /sessions/{id}`).
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */

import type { SessionSummary } from "./session-snapshot.js";

export type { CreateSessionBody, ForkSessionBody, NewSessionBody } from "./session-creation.js";

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
