/**
 * Where the daemon listens and how it may be reached from other machines: SKEIN_LISTEN
 * (ADDRESS:PORT, or SKEIN_HOST and SKEIN_PORT apart), SKEIN_TLS_CERT and SKEIN_TLS_KEY (serve
 * HTTPS), SKEIN_TRUST_PROXY (the addresses of the reverse proxies in front of it).
 *
 * Boundary rule: reads and validates variables only (the PEM files are read by tls-files.ts).
 * A non-loopback address is refused unless the token cannot cross the network in clear text:
 * TLS is configured, or a reverse proxy terminates it (SKEIN_TRUST_PROXY), or the operator
 * says the network is private (SKEIN_ALLOW_NON_LOOPBACK=1, e.g. a pod network).
 */
import { isIP } from "node:net";
import { SettingsError } from "./settings-error.js";

/** The PEM files of the daemon's HTTPS listener. */
export interface TlsPaths {
  certPath: string;
  keyPath: string;
}

/** Where and how the daemon listens. */
export interface ListenSettings {
  host: string;
  /** 0 = choose a port (the one chosen before when free). */
  port: number;
  tls: TlsPaths | null;
  /** Peers whose `X-Forwarded-For` names the client; only they (and loopback) may connect in plain text. */
  trustProxy: string[];
}

/** The listen address and port of SKEIN_LISTEN (`ADDRESS:PORT`, an IPv6 address in brackets), or null when unset. */
export function readListen(raw: string | undefined): { host: string; port: number } | null {
  if (raw === undefined) return null;
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(raw);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (match === null || host === undefined || isIP(host) === 0 || port > 65_535) {
    throw new SettingsError(
      "SKEIN_LISTEN",
      raw,
      "expected ADDRESS:PORT with an IP address, e.g. 0.0.0.0:7700, 127.0.0.1:0 or [::]:7700",
    );
  }
  return { host, port };
}

/** SKEIN_TLS_CERT and SKEIN_TLS_KEY: both (serve HTTPS) or neither. */
export function readTlsPaths(cert: string | undefined, key: string | undefined): TlsPaths | null {
  if (cert === undefined && key === undefined) return null;
  if (cert === undefined || key === undefined) {
    const missing = cert === undefined ? "SKEIN_TLS_CERT" : "SKEIN_TLS_KEY";
    throw new SettingsError(missing, null, "HTTPS needs both SKEIN_TLS_CERT and SKEIN_TLS_KEY (PEM files)");
  }
  return { certPath: cert, keyPath: key };
}

/** SKEIN_TRUST_PROXY: comma-separated IP addresses of the reverse proxies in front of the daemon. */
export function readTrustProxy(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  const addresses = raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  for (const address of addresses) {
    if (isIP(address) === 0) {
      throw new SettingsError(
        "SKEIN_TRUST_PROXY",
        raw,
        `${JSON.stringify(address)} is not an IP address; list the proxies' addresses, comma-separated`,
      );
    }
  }
  return addresses;
}

/** Refuse a non-loopback listen address without TLS, a trusted proxy or the private-network opt-in. */
export function checkExposure(
  listen: ListenSettings,
  variable: "SKEIN_LISTEN" | "SKEIN_HOST",
  loopback: boolean,
  allowNonLoopback: boolean,
): void {
  if (loopback || listen.tls !== null || listen.trustProxy.length > 0 || allowNonLoopback) return;
  throw new SettingsError(
    variable,
    listen.host,
    "it is not a loopback address, and without TLS the bearer token would cross the network in clear text; " +
      "set SKEIN_TLS_CERT and SKEIN_TLS_KEY (PEM files) to serve HTTPS, or SKEIN_TRUST_PROXY to the address of " +
      "the TLS-terminating reverse proxy in front of it (with SKEIN_PUBLIC_URLS, its public URL)",
  );
}
