/**
 * The wire shapes of the daemon's own resources: `GET /server`, `POST /server/shutdown` and the
 * debug route.
 *
 * Boundary rule: plain types in their wire shape (snake_case); no behaviour.
 */

/** `GET /server`. */
export interface ServerInfo {
  instance_id: string;
  protocol: number;
  state: "ready" | "draining";
  capabilities: Record<string, number>;
  version: string;
}

/** Body of `POST /server/shutdown`. */
export interface ShutdownBody {
  instance_id: string;
  /** How long running turns get before the process exits (default 5000, at most 300000). */
  timeout_ms?: number;
}

/** The 202 of `POST /server/shutdown`. */
export interface ShutdownAnswer {
  instance_id: string;
  state: "draining";
}

/** `POST /debug/sessions/{id}/restart` (only with SKEIN_INSPECT=1). */
export interface RestartAnswer {
  result: "actor_stopped";
}
