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
  /** How sessions' `run_command` runs (absent from older daemons). */
  shell?: ShellInfo;
}

/**
 * How `run_command` is offered: inside bubblewrap (read-only host, writable workspace and /tmp,
 * network only when `network`), as a plain shell (the operator's opt-in), or not at all.
 */
export interface ShellInfo {
  mode: "sandboxed" | "unconfined" | "off";
  /** Sandboxed commands have an outbound-only network (SKEIN_SANDBOX_NETWORK=1 and slirp4netns found). */
  network: boolean;
  /** One sentence saying how commands run, or why they cannot. */
  detail: string;
  /** What to do about it when commands cannot run or run less confined than usual, else null. */
  hint: string | null;
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
