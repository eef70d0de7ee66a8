/**
 * Who may talk to the daemon: the bearer token, the Host header and, for browsers, the origin.
 *
 * Boundary rule: pure checks on header values, shared by the request hook and the handlers for
 * requests Fastify never sees. The token is compared in constant time: both sides are hashed to
 * fixed-length SHA-256 digests first, so neither the content nor the length of the expected
 * token leaks through timing. The Host check blocks DNS rebinding: a web page that resolves its
 * own name to 127.0.0.1 still sends its own name as Host. The origin check blocks every other
 * web page: browsers name the page's origin in `Origin` (and the relation in `Sec-Fetch-Site`),
 * and a page cannot forge either; programs send neither and are not affected.
 */
import { hash, timingSafeEqual } from "node:crypto";

/** Checks an Authorization header value against the daemon's token. */
export class BearerCheck {
  private readonly expected: Buffer;

  constructor(token: string) {
    this.expected = digest(token);
  }

  /** True when `authorization` is `Bearer <token>` with the daemon's token. */
  accepts(authorization: string | undefined): boolean {
    if (authorization === undefined) return false;
    const secret = bearerSecret(authorization);
    // Hash even on a malformed header so the work done does not depend on the input's shape.
    const given = digest(secret ?? "");
    return timingSafeEqual(given, this.expected) && secret !== null;
  }
}

/** The secret of an `Authorization: Bearer <secret>` value, or null when it has another shape. */
export function bearerSecret(authorization: string): string | null {
  return /^bearer +(\S+) *$/i.exec(authorization)?.[1] ?? null;
}

/** The Host values accepted for a daemon on `port` (lower case). */
export function allowedHosts(port: number, extraHosts: readonly string[] = []): Set<string> {
  const names = ["127.0.0.1", "localhost", "[::1]", ...extraHosts];
  return new Set(names.map((name) => `${name.toLowerCase()}:${port}`));
}

/** The origins of the daemon's own pages: `http://` plus each accepted Host value (`name:port`). */
export function allowedOrigins(hosts: ReadonlySet<string>): Set<string> {
  return new Set([...hosts].map((host) => `http://${host}`));
}

/**
 * The Host values and the origin of a URL the operator says reaches this daemon (its
 * SKEIN_NODE_URL, or a reverse proxy's SKEIN_PUBLIC_URLS entry). Both spellings of a default
 * port are Host values (`name` and `name:443`); only configured names ever get here, so DNS
 * rebinding, which needs a name of the attacker's, stays closed.
 */
export function publicAuthority(url: string): { hosts: string[]; origin: string } {
  const parsed = new URL(url);
  const host = parsed.host.toLowerCase();
  const defaultPort = parsed.protocol === "https:" ? "443" : "80";
  return {
    hosts: parsed.port === "" ? [host, `${host}:${defaultPort}`] : [host],
    origin: parsed.origin.toLowerCase(),
  };
}

/**
 * Why a request sent by a web page is refused, or null when it may pass. With an `Origin`, it
 * alone decides: exactly one, naming one of `origins` (`null`, the opaque origin of sandboxed
 * pages and files, never does). Without one (a browser's plain GET, or a program), a
 * `Sec-Fetch-Site` other than same-origin or none means another page caused the request.
 */
export function browserRefusal(rawHeaders: readonly string[], origins: ReadonlySet<string>): string | null {
  const origin = headerValues(rawHeaders, "origin");
  if (origin.length > 1) return "a request must carry at most one Origin header";
  if (origin.length === 1) {
    return origins.has(origin[0]!.toLowerCase())
      ? null
      : "only pages served by the daemon itself may call it";
  }
  const site = headerValues(rawHeaders, "sec-fetch-site");
  if (site.length === 0) return null;
  const relation = site.length === 1 ? site[0]!.toLowerCase() : "repeated";
  return relation === "same-origin" || relation === "none"
    ? null
    : "only pages served by the daemon itself may call it (Sec-Fetch-Site)";
}

/** The values of a header in Node's rawHeaders, one per line (Node folds some duplicates away). */
export function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toLowerCase() === name) values.push(rawHeaders[index + 1]!);
  }
  return values;
}

// One-shot: `createHash` builds a Hash object and fetches the algorithm for every call, which
// costs several times the hashing of a header's few bytes.
function digest(text: string): Buffer {
  return hash("sha256", text, "buffer");
}
