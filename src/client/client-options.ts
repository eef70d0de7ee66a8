/** The options of a `DaemonClient` and of one of its calls. */
import type { DaemonEndpoint } from "./daemon-endpoint.js";

export interface DaemonClientOptions {
  /** Find the daemon through this home's daemon.json (default: SKEIN_HOME or ~/.skein). */
  home?: string;
  /** Talk to this endpoint instead of reading daemon.json. */
  endpoint?: DaemonEndpoint;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  /**
   * Start a daemon for the home (e.g. `ensureDaemon`). Given, the client starts the daemon again
   * when it crashed (daemon.json names a process that is gone) instead of failing; a daemon
   * stopped on purpose removed its daemon.json and is left stopped.
   */
  startDaemon?: () => Promise<unknown>;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  timeoutMs?: number;
}
