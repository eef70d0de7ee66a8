/**
 * What `GET /mcp` answers and `skein mcp list|test` shows: the configured MCP servers, each
 * running instance's state, its tools (with the names the model sees) and its last error.
 *
 * Boundary rule: plain wire data (snake_case, times as ISO 8601 strings).
 */

/** Where an instance is in its life. */
export type McpServerState =
  /** Being spawned or connected, initialized, its tools listed. */
  | "starting"
  | "ready"
  /** It crashed or lost its connection; a restart is scheduled. */
  | "restarting"
  /** Its last start failed; the next use tries again once the backoff has passed. */
  | "failed"
  | "stopped";

export interface McpToolStatus {
  /** The name the model sees (`<server>__<tool>`). */
  name: string;
  /** The tool's name on the server. */
  mcp_name: string;
  description: string;
}

export interface McpErrorStatus {
  message: string;
  at: string;
}

/** One running (or failed) server process or connection. */
export interface McpInstanceStatus {
  /** The workspace it was started for (servers whose config uses `${workspace}`), else null. */
  workspace: string | null;
  state: McpServerState;
  /** The process id of a stdio server while it runs. */
  pid: number | null;
  started_at: string | null;
  /** Restarts after a crash since the daemon started. */
  restarts: number;
  tools: McpToolStatus[];
  last_error: McpErrorStatus | null;
}

/** One entry of `mcpServers`. */
export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  /** The command line or the URL, for display (header values and env are not shown). */
  target: string;
  /** "daemon": one instance shared by every session; "workspace": one per workspace. */
  scope: "daemon" | "workspace";
  /** Empty until a session first uses the server. */
  instances: McpInstanceStatus[];
}

/** The answer of `GET /mcp`. */
export interface McpStatus {
  servers: McpServerStatus[];
  /** Why config.json is not in use (the last good one is), or null. */
  config_error: string | null;
}

/** The answer of `POST /mcp/{name}/test`: the server started (or not) and what it offers. */
export interface McpTestReport {
  name: string;
  ok: boolean;
  /** Milliseconds from the start (spawn or connect) to the tool list. */
  elapsed_ms: number;
  instance: McpInstanceStatus;
}
