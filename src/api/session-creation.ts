/**
 * How a session comes to be: the body of `PUT /sessions/{id}` (a new session or a fork) and
 * the record a summary and a snapshot show of it (`creation`).
 *
 * Boundary rule: types only, each the static type of its schema (schemas/session-creation.ts).
 */
export type {
  CreateSessionBody,
  SessionCreation,
} from "./schemas/session-creation.js";
