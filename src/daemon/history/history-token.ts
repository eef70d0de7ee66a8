/**
 * Opaque history paging tokens: `<base64url payload>.<base64url HMAC-SHA256>`, keyed by a
 * daemon secret.
 *
 * Boundary rule: a token is only ever accepted for the session and page size it was issued
 * for, with its signature intact; anything else is a `HistoryTokenInvalidError` (400), and a
 * genuine but old token a `HistoryTokenExpiredError` (410). The payload carries the snapshot
 * `upper` bound of the first read, so later pages never see entries appended after it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { HistoryTokenExpiredError, HistoryTokenInvalidError } from "../errors.js";

export type HistoryDirection = "older" | "newer";

/** The daemon's signing key (e.g. random bytes drawn at start; tokens die with it). */
export type HistoryTokenSecret = string | Uint8Array;

export interface HistoryTokenPayload {
  sessionId: string;
  limit: number;
  direction: HistoryDirection;
  /** Exclusive position bound: older pages read below it, newer pages above it. */
  bound: number;
  /**
   * Set when a page ended inside the entries of one position (its byte budget was reached
   * there): older pages read that position's entries below this index, newer pages those from
   * it on, before going on past `bound`.
   */
  index?: number;
  /** The highest log position of the first read; pages never go above it. */
  upper: number;
  /** ms since the epoch. */
  issuedAt: number;
}

/** How long a token stays valid unless the caller says otherwise. */
export const defaultHistoryTokenTtlMs = 60 * 60 * 1000;

interface WirePayload {
  v: 1;
  s: string;
  l: number;
  d: "o" | "n";
  b: number;
  u: number;
  t: number;
  i?: number;
}

const signaturePrefix = "skein.history.v1.";

/** Sign a paging token for `payload`. */
export function signHistoryToken(payload: HistoryTokenPayload, secret: HistoryTokenSecret): string {
  const wire: WirePayload = {
    v: 1,
    s: payload.sessionId,
    l: payload.limit,
    d: payload.direction === "older" ? "o" : "n",
    b: payload.bound,
    u: payload.upper,
    t: payload.issuedAt,
    ...(payload.index === undefined ? {} : { i: payload.index }),
  };
  const body = Buffer.from(JSON.stringify(wire), "utf8").toString("base64url");
  return `${body}.${signature(body, secret).toString("base64url")}`;
}

/**
 * The payload of a token issued by this daemon for this session and limit; throws
 * `HistoryTokenInvalidError` or `HistoryTokenExpiredError`.
 */
export function verifyHistoryToken(
  token: string,
  expected: {
    secret: HistoryTokenSecret;
    sessionId: string;
    limit: number;
    now: number;
    ttlMs?: number;
  },
): HistoryTokenPayload {
  const ttlMs = expected.ttlMs ?? defaultHistoryTokenTtlMs;
  const dot = token.indexOf(".");
  if (dot <= 0 || dot !== token.lastIndexOf(".")) throw new HistoryTokenInvalidError("malformed token");
  const body = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1), "base64url");
  const wanted = signature(body, expected.secret);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) {
    throw new HistoryTokenInvalidError("bad signature (not issued by this daemon instance)");
  }
  const payload = parsePayload(body);
  if (payload.sessionId !== expected.sessionId) {
    throw new HistoryTokenInvalidError("the token belongs to another session");
  }
  if (payload.limit !== expected.limit) {
    throw new HistoryTokenInvalidError(
      `the token was issued for limit=${payload.limit}, not ${expected.limit}`,
    );
  }
  if (expected.now - payload.issuedAt > ttlMs) throw new HistoryTokenExpiredError(payload.issuedAt, ttlMs);
  return payload;
}

function signature(body: string, secret: HistoryTokenSecret): Buffer {
  return createHmac("sha256", secret).update(signaturePrefix).update(body).digest();
}

function parsePayload(body: string): HistoryTokenPayload {
  let wire: unknown;
  try {
    wire = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    throw new HistoryTokenInvalidError("unreadable payload");
  }
  if (!isWirePayload(wire)) throw new HistoryTokenInvalidError("unreadable payload");
  return {
    sessionId: wire.s,
    limit: wire.l,
    direction: wire.d === "o" ? "older" : "newer",
    bound: wire.b,
    upper: wire.u,
    issuedAt: wire.t,
    ...(wire.i === undefined ? {} : { index: wire.i }),
  };
}

function isWirePayload(value: unknown): value is WirePayload {
  if (typeof value !== "object" || value === null) return false;
  const wire = value as Record<string, unknown>;
  return (
    wire.v === 1 &&
    typeof wire.s === "string" &&
    (wire.d === "o" || wire.d === "n") &&
    [wire.l, wire.b, wire.u, wire.t].every((n) => Number.isSafeInteger(n)) &&
    (wire.i === undefined || (Number.isSafeInteger(wire.i) && (wire.i as number) > 0))
  );
}
