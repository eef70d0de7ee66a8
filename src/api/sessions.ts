/**
 * The session collection's requests and answers: listing (`GET /sessions`), creating and
 * forking (`PUT /sessions/{id}`), deleting (`DELETE /sessions/{id}`).
 *
 * Boundary rule: types only, each the static type of its schema (schemas/sessions.ts,
 * schemas/session-creation.ts).
 */
export type { CreateSessionBody, ForkSessionBody, NewSessionBody } from "./schemas/session-creation.js";
export type {
  DeleteAnswer,
  ListQuery,
  SessionList,
  SessionListQuery,
  SessionQuery,
  SessionReadQuery,
} from "./schemas/sessions.js";
