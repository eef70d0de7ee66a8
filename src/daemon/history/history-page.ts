/**
 * History pages (`GET /sessions/{id}/history` and the snapshot's `history`).
 *
 * Boundary rule: pages are cut by LOG POSITION, counting only positions that yield at least one
 * history entry; a page holds up to `limit` such positions with all their entries, oldest
 * first. The first read fixes `upper` (the log's head position then, reported as `high_water`)
 * and every token carries it, so paging to `older: null` or `newer: null` visits each entry
 * that existed at the first read exactly once, however much is appended in between. `after` is
 * exclusive except `after=0`, which reads from the start: position 0 is the session_start entry,
 * which holds a fork's copied history and has nothing before it. Errors of
 * `readEntries` (storage failures, LogCorruptError) propagate unchanged.
 */
import type { PositionedEntry } from "../../log/entries.js";
import type { HistoryEntry } from "./history-entry.js";
import {
  type HistoryDirection,
  type HistoryTokenSecret,
  signHistoryToken,
  verifyHistoryToken,
} from "./history-token.js";
import { projectEntry, projectsToHistory, recordToolNames, type ToolNames } from "./project-history.js";

export interface HistoryPage {
  /** Oldest first. */
  items: HistoryEntry[];
  /** A token for the page before this one, or null when nothing older exists. */
  older: string | null;
  /** A token for the page after this one (up to `high_water`), or null. */
  newer: string | null;
  /** The log head position this page (and every page reached from its tokens) is bounded by. */
  high_water: number;
}

/** The verified entries of a session's log in position order (e.g. `(id) => store.readAll(id)`). */
export type ReadEntries = (
  sessionId: string,
) => Promise<readonly PositionedEntry[]> | readonly PositionedEntry[];

export interface HistoryPageRequest {
  sessionId: string;
  /** 1..200, default 100; must equal the limit a `next` token was issued for. */
  limit?: number;
  /** At most one of next, before, after. */
  next?: string;
  before?: number;
  after?: number;
  secret: HistoryTokenSecret;
  /** ms since the epoch: issue time of new tokens and the clock for expiry. */
  now: number;
  tokenTtlMs?: number;
}

export const defaultHistoryLimit = 100;
export const maxHistoryLimit = 200;
export const defaultTail = 100;

/** A history query that can never be answered (→ 400 invalid_request). */
export class HistoryQueryInvalidError extends Error {
  readonly status = 400;
  readonly code = "invalid_request";

  constructor(reason: string) {
    super(reason);
    this.name = "HistoryQueryInvalidError";
  }
}

interface Window {
  sessionId: string;
  direction: HistoryDirection;
  /** Exclusive: older reads take positions below it, newer reads above it. */
  bound: number;
  upper: number;
  /** How many positions to take. */
  take: number;
  /** The limit tokens of this page are bound to. */
  tokenLimit: number;
  secret: HistoryTokenSecret;
  now: number;
}

/**
 * One page of a session's history: the newest page when no position is given, backwards from
 * `before`, forwards from `after`, or wherever a `next` token points. Token errors are thrown
 * before the log is read.
 */
export async function readHistoryPage(
  readEntries: ReadEntries,
  request: HistoryPageRequest,
): Promise<HistoryPage> {
  const limit = request.limit ?? defaultHistoryLimit;
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > maxHistoryLimit) {
    throw new HistoryQueryInvalidError(`limit must be an integer from 1 to ${maxHistoryLimit}`);
  }
  const given = [request.next, request.before, request.after].filter((value) => value !== undefined);
  if (given.length > 1) throw new HistoryQueryInvalidError("give at most one of next, before and after");
  for (const position of [request.before, request.after]) {
    if (position !== undefined && (!Number.isSafeInteger(position) || position < 0)) {
      throw new HistoryQueryInvalidError("before and after must be non-negative integer positions");
    }
  }
  const common = {
    sessionId: request.sessionId,
    take: limit,
    tokenLimit: limit,
    secret: request.secret,
    now: request.now,
  };
  if (request.next !== undefined) {
    const token = verifyHistoryToken(request.next, {
      secret: request.secret,
      sessionId: request.sessionId,
      limit,
      now: request.now,
      ...(request.tokenTtlMs === undefined ? {} : { ttlMs: request.tokenTtlMs }),
    });
    const entries = await readEntries(request.sessionId);
    return pageOf(entries, { ...common, direction: token.direction, bound: token.bound, upper: token.upper });
  }
  const entries = await readEntries(request.sessionId);
  const upper = headPosition(entries);
  if (request.after !== undefined) {
    // Position 0 (session_start) precedes everything, so after=0 means "from the start".
    const bound = request.after === 0 ? -1 : request.after;
    return pageOf(entries, { ...common, direction: "newer", bound, upper });
  }
  const bound = request.before ?? upper + 1;
  return pageOf(entries, { ...common, direction: "older", bound, upper });
}

/**
 * The snapshot's history: the newest `tail` positions (default 100, 0..200) and an `older` token
 * bound to limit=`tail` (to limit=100 when tail is 0, which gives no items but still a token when
 * the log has history).
 */
export function tailPage(
  entries: readonly PositionedEntry[],
  options: { sessionId: string; tail?: number; secret: HistoryTokenSecret; now: number },
): HistoryPage {
  const tail = options.tail ?? defaultTail;
  if (!Number.isSafeInteger(tail) || tail < 0 || tail > maxHistoryLimit) {
    throw new HistoryQueryInvalidError(`tail must be an integer from 0 to ${maxHistoryLimit}`);
  }
  const upper = headPosition(entries);
  return pageOf(entries, {
    sessionId: options.sessionId,
    direction: "older",
    bound: upper + 1,
    upper,
    take: tail,
    tokenLimit: tail === 0 ? defaultHistoryLimit : tail,
    secret: options.secret,
    now: options.now,
  });
}

function headPosition(entries: readonly PositionedEntry[]): number {
  return entries.length === 0 ? -1 : entries[entries.length - 1]!.position;
}

function pageOf(entries: readonly PositionedEntry[], window: Window): HistoryPage {
  const positions: number[] = [];
  for (const { position, entry } of entries) {
    if (position <= window.upper && projectsToHistory(entry)) positions.push(position);
  }
  let selected: number[];
  if (window.direction === "older") {
    const below = positions.filter((p) => p < window.bound);
    selected = below.slice(Math.max(0, below.length - window.take));
  } else {
    selected = positions.filter((p) => p > window.bound).slice(0, window.take);
  }

  const first = selected[0];
  const last = selected[selected.length - 1];
  const olderBound = first ?? (window.direction === "older" ? window.bound : window.bound + 1);
  const newerBound = last ?? (window.direction === "older" ? window.bound - 1 : window.bound);
  const hasOlder = positions.length > 0 && positions[0]! < olderBound;
  const hasNewer = positions.length > 0 && positions[positions.length - 1]! > newerBound;

  return {
    items: projectSelected(entries, selected),
    older: hasOlder ? token(window, "older", olderBound) : null,
    newer: hasNewer ? token(window, "newer", newerBound) : null,
    high_water: window.upper,
  };
}

function projectSelected(entries: readonly PositionedEntry[], selected: readonly number[]): HistoryEntry[] {
  const items: HistoryEntry[] = [];
  if (selected.length === 0) return items;
  const wanted = new Set(selected);
  const last = selected[selected.length - 1]!;
  // Tool results are named after calls that may sit anywhere earlier in the log.
  const names: ToolNames = new Map();
  for (const placed of entries) {
    if (placed.position > last) break;
    if (wanted.has(placed.position)) {
      for (const entry of projectEntry(placed, names)) items.push(entry);
    } else {
      recordToolNames(placed.entry, names);
    }
  }
  return items;
}

function token(window: Window, direction: HistoryDirection, bound: number): string {
  return signHistoryToken(
    {
      sessionId: window.sessionId,
      limit: window.tokenLimit,
      direction,
      bound,
      upper: window.upper,
      issuedAt: window.now,
    },
    window.secret,
  );
}
