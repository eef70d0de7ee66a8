/**
 * Where a client sends its requests: the daemon's port, address and bearer token, and for a
 * daemon that serves HTTPS the certificate to trust, as the home's daemon.json names them (read
 * by src/home/discovery-file.ts) or as a caller gives them.
 *
 * Boundary rule: a plain type and its constructor; the only I/O is reading the certificate.
 */

import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { RequestOptions } from "node:https";
import type { DiscoveryInfo } from "../home/discovery-file.js";

/** Where a client sends its requests. */
export interface DaemonEndpoint {
  port: number;
  token: string;
  /** The address to connect to (default 127.0.0.1). */
  host?: string;
  /** The daemon serves HTTPS with this certificate (PEM): it alone is trusted. */
  tlsCert?: string;
}

/** The endpoint a daemon.json names (reading the certificate it names, if any). */
export function endpointOf(info: DiscoveryInfo): DaemonEndpoint {
  return {
    port: info.port,
    token: info.token,
    ...(info.host === undefined ? {} : { host: info.host }),
    ...(info.tls_cert === undefined ? {} : { tlsCert: readFileSync(info.tls_cert, "utf8") }),
  };
}

/**
 * The TLS options of a request to a daemon serving HTTPS with `cert`: that certificate is the one
 * trusted (pinned by its fingerprint), whatever names it carries, since the client connects to
 * an address (127.0.0.1) that a certificate for a public name does not list.
 */
export function pinnedTls(cert: string): Pick<RequestOptions, "ca" | "checkServerIdentity"> {
  const expected = new X509Certificate(cert).fingerprint256;
  return {
    ca: cert,
    checkServerIdentity: (_host, peer) =>
      peer.fingerprint256 === expected
        ? undefined
        : new Error("the daemon's certificate is not the one daemon.json names"),
  };
}
