/**
 * A session as the HTTP API shows it: the summary `GET /sessions` lists, and the snapshot a
 * client rebuilds its view from (`GET /sessions/{id}`, the answer of a creation, a stream
 * reset's `snapshot`).
 *
 * Boundary rule: types only, each the static type of its schema (schemas/session-snapshot.ts);
 * the daemon builds them, a client reads them.
 */
export type { SessionCreation, SnapshotCreation } from "./schemas/session-creation.js";
export type {
  CompactAnswer,
  RepairAnswer,
  RepairBody,
  SessionContext,
  SessionPhase,
  SessionPreview,
  SessionSnapshot,
  SessionStatus,
  SessionSummary,
  SessionUsage,
  TodoItem,
} from "./schemas/session-snapshot.js";
