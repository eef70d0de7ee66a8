/**
 * Who may talk to the daemon: the bearer token and the Host header.
 *
 * Boundary rule: pure checks on header values, shared by the request hook and the handler for
 * requests Node could not even parse. The token is compared in constant time: both sides are
 * hashed to fixed-length SHA-256 digests first, so neither the content nor the length of the
 * expected token leaks through timing. The Host check blocks DNS rebinding: a web page that
 * resolves its own name to 127.0.0.1 still sends its own name as Host.
 */
import { createHash, timingSafeEqual } from "node:crypto";

/** Checks an Authorization header value against the daemon's token. */
export class BearerCheck {
  private readonly expected: Buffer;

  constructor(token: string) {
    this.expected = digest(token);
  }

  /** True when `authorization` is `Bearer <token>` with the right token. */
  accepts(authorization: string | undefined): boolean {
    if (authorization === undefined) return false;
    const match = /^bearer +(\S+) *$/i.exec(authorization);
    // Hash even on a malformed header so the work done does not depend on the input's shape.
    const given = digest(match?.[1] ?? "");
    return timingSafeEqual(given, this.expected) && match !== null;
  }
}

/** The Host values accepted for a daemon on `port` (lower case). */
export function allowedHosts(port: number, extraHosts: readonly string[] = []): Set<string> {
  const names = ["127.0.0.1", "localhost", "[::1]", ...extraHosts];
  return new Set(names.map((name) => `${name.toLowerCase()}:${port}`));
}

/** Count how often a header appears in Node's rawHeaders (Node folds some duplicates away). */
export function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if (rawHeaders[index]!.toLowerCase() === name) count += 1;
  }
  return count;
}

/** The Authorization header found in the raw bytes of a request Node failed to parse. */
export function authorizationInRawRequest(raw: Buffer | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const end = raw.indexOf("\r\n\r\n");
  const head = raw.subarray(0, end < 0 ? Math.min(raw.length, 65_536) : end).toString("latin1");
  const found = head.split("\r\n").filter((line) => /^authorization:/i.test(line));
  // Two Authorization headers are as untrustworthy as none.
  if (found.length !== 1) return undefined;
  return found[0]!.slice("authorization:".length).trim();
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}
