/**
 * Where a daemon is reached from elsewhere: its cluster node URL (SKEIN_NODE_URL, what the other
 * nodes relay to), the public URLs of a reverse proxy in front of it (SKEIN_PUBLIC_URLS), and
 * what is wrong or risky about them given the listen address (SKEIN_HOST).
 *
 * Boundary rule: pure functions of the settings' strings; a value that can never work is a
 * `SettingsError` (the daemon refuses to start), one that works only in some setups is a warning
 * the daemon logs at start.
 */
import { isIP } from "node:net";
import { SettingsError } from "./settings-error.js";

/** A URL is a node URL or a public URL: http(s), a host and maybe a port, nothing else. */
function readOrigin(variable: string, raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new SettingsError(
      variable,
      raw,
      "expected an http:// or https:// URL such as http://10.0.0.5:7700",
    );
  }
  if (
    (url.protocol !== "http:" && url.protocol !== "https:") ||
    url.pathname !== "/" ||
    url.search !== "" ||
    url.hash !== "" ||
    url.username !== "" ||
    url.password !== ""
  ) {
    throw new SettingsError(variable, raw, "expected an http:// or https:// URL with a host and port only");
  }
  return url;
}

/** SKEIN_NODE_URL as an origin (`http://10.0.0.5:7700`), or null when unset. */
export function readNodeUrl(raw: string | undefined): string | null {
  return raw === undefined ? null : readOrigin("SKEIN_NODE_URL", raw).origin;
}

/** SKEIN_PUBLIC_URLS: comma-separated URLs that reach this daemon through a proxy, as origins. */
export function readPublicUrls(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "")
    .map((part) => readOrigin("SKEIN_PUBLIC_URLS", part).origin);
}

/** True for a wildcard listen address (every interface). */
export function isWildcardAddress(address: string): boolean {
  return address === "0.0.0.0" || address === "::" || address === "0:0:0:0:0:0:0:0";
}

/** True for a host name or IP literal that only this machine reaches (`localhost`, 127/8, ::1). */
export function isLoopbackHostName(hostname: string): boolean {
  const bare = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  const kind = isIP(bare);
  if (kind === 4) return bare.startsWith("127.");
  if (kind === 6) return bare === "::1" || bare.startsWith("::ffff:127.");
  return false;
}

/** An IP literal as it appears in a URL's or Host header's authority (IPv6 in brackets). */
function hostForUrl(address: string): string {
  return isIP(address) === 6 ? `[${address}]` : address;
}

/**
 * The node URL when SKEIN_NODE_URL is unset: the listen address itself when it is one
 * (`SKEIN_HOST=10.0.0.5` → `http://10.0.0.5:<port>`), else loopback.
 */
export function defaultNodeUrl(listenHost: string, port: number): string {
  const host = isWildcardAddress(listenHost) ? "127.0.0.1" : hostForUrl(listenHost);
  return `http://${host}:${port}`;
}

/**
 * Refuse a node URL that cannot reach this daemon at all: a loopback URL while the daemon
 * listens on one non-loopback address only (nothing listens on loopback, so every relay to it
 * is refused, and the nodes that try mark it stopped).
 */
export function checkNodeUrl(nodeUrl: string | null, listenHost: string, listenIsLoopback: boolean): void {
  if (nodeUrl === null || listenIsLoopback || isWildcardAddress(listenHost)) return;
  if (isLoopbackHostName(new URL(nodeUrl).hostname)) {
    throw new SettingsError(
      "SKEIN_NODE_URL",
      nodeUrl,
      `it is a loopback address, but the daemon listens on ${listenHost} only: the other nodes could not reach it; give the URL they reach this node at, e.g. http://${hostForUrl(listenHost)}:<port>`,
    );
  }
}

/** What the operator should hear at start about how this node is reached (empty: nothing). */
export function nodeAddressWarnings(
  nodeUrl: string,
  listenHost: string,
  nodeUrlConfigured: boolean,
): string[] {
  const warnings: string[] = [];
  const url = new URL(nodeUrl);
  const loopback = isLoopbackHostName(url.hostname);
  if (loopback && isWildcardAddress(listenHost)) {
    warnings.push(
      `this node's URL is ${nodeUrl}${nodeUrlConfigured ? "" : " (the default)"}, a loopback address, while it listens on every interface: ` +
        "only nodes on this machine can relay to it; on separate machines set SKEIN_NODE_URL to the address the other nodes reach it at",
    );
  }
  if (!loopback && url.protocol === "http:") {
    warnings.push(
      `this node's URL ${nodeUrl} is plain http on a network address: requests relayed between nodes carry the cluster's token in clear text; ` +
        "run the nodes on a private network, or put TLS in front of each node and give https:// node URLs",
    );
  }
  return warnings;
}

/**
 * The names (without port) a Host header may give for the listen address: the address itself
 * for one interface (127.0.0.2 too: it is not 127.0.0.1), and every
 * interface's address for a wildcard (each is an address the daemon answers on; link-local
 * IPv6 addresses need a zone, which no Host header carries, and are left out).
 */
export function listenHostNames(
  listenHost: string,
  interfaces: NodeJS.Dict<Array<{ address: string; family: string | number }>>,
): string[] {
  if (!isWildcardAddress(listenHost)) return [hostForUrl(listenHost)];
  const names: string[] = [];
  for (const addresses of Object.values(interfaces)) {
    for (const { address } of addresses ?? []) {
      if (isLoopbackHostName(address) || address.toLowerCase().startsWith("fe80:")) continue;
      names.push(hostForUrl(address));
    }
  }
  return names;
}
