/**
 * How a session comes to be: the body of `PUT /sessions/{id}` (a new session or a fork), its
 * 201 answer, and the record a summary and a snapshot show of it (`creation`).
 *
 * Boundary rule: types only, each the static type of its schema (schemas/session-creation.ts).
 */
export type { CreatedSession } from "./schemas/created-session.js";
export type {
  CreateSessionBody,
  SessionCreation,
} from "./schemas/session-creation.js";
