/**
 * Problem JSON (RFC 9457 shape): the body of every 4xx/5xx answer of the daemon, and the closed
 * list of its codes with their HTTP statuses and titles.
 *
 * Boundary rule: the catalogue (problem-codes.ts) and the body's types (each derived from the
 * schema in schemas/problem.ts); the daemon raises problems with these codes
 * (src/daemon/http/problem.ts) and a client reads them (`DaemonApiError.code`).
 */
export { type ProblemCode, problemContentType, problemStatuses, problemTitles } from "./problem-codes.js";
export type { ProblemBody, RejectedCreationBody } from "./schemas/problem.js";
