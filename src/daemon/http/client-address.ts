/**
 * The address a request came from, as recorded with what it did. Behind a reverse proxy the
 * peer is the proxy: then, and only when the peer's address is one the operator listed in
 * SKEIN_TRUST_PROXY, the last entry of `X-Forwarded-For` (the one that proxy appended) is the
 * client's. No other forwarded header is read, and from any other peer none is believed.
 *
 * Boundary rule: a pure function of the socket's address and the header lines.
 */
import { headerValues } from "./request-guard.js";

/** The client address of a request from `peer` (the socket's remote address). */
export function clientAddress(
  peer: string | undefined,
  rawHeaders: readonly string[],
  trustedProxies: ReadonlySet<string>,
): string | null {
  if (peer === undefined) return null;
  const address = plainAddress(peer);
  if (!trustedProxies.has(address)) return address;
  const hops = headerValues(rawHeaders, "x-forwarded-for")
    .flatMap((value) => value.split(","))
    .map((hop) => hop.trim())
    .filter((hop) => hop !== "");
  return hops.length === 0 ? address : plainAddress(hops[hops.length - 1]!);
}

/** An IPv4 address as Node reports it on a dual-stack socket (`::ffff:10.0.0.5`) in its plain form. */
export function plainAddress(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address.toLowerCase();
}

/** Whether a peer may connect to a plain-HTTP daemon behind proxies: a listed proxy or loopback. */
export function mayConnectInPlainText(
  peer: string | undefined,
  trustedProxies: ReadonlySet<string>,
): boolean {
  if (peer === undefined) return false;
  const address = plainAddress(peer);
  return trustedProxies.has(address) || address.startsWith("127.") || address === "::1";
}
