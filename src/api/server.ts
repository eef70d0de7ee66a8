/**
 * The wire shapes of the daemon's own resources: `GET /server`, `POST /server/shutdown` and the
 * debug route.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/server.ts).
 */
export type {
  ProbeAnswer,
  RestartAnswer,
  ServerInfo,
  ShellInfo,
  ShutdownAnswer,
  ShutdownBody,
} from "./schemas/server.js";
