/**
 * Where a client sends its requests: the daemon's loopback port and bearer token, as the
 * home's daemon.json names them (read by src/home/discovery-file.ts) or as a caller gives them.
 *
 * Boundary rule: a plain type and its one constructor; no I/O.
 */
import type { DiscoveryInfo } from "../home/discovery-file.js";

/** Where a client sends its requests. */
export interface DaemonEndpoint {
  port: number;
  token: string;
  /** Loopback host the daemon listens on. */
  host?: string;
}

/** The endpoint a daemon.json names. */
export function endpointOf(info: DiscoveryInfo): DaemonEndpoint {
  return { port: info.port, token: info.token };
}
