/**
 * History pages (`GET /sessions/{id}/history` and the snapshot's `history`).
 *
 * Boundary rule: pages are cut by LOG POSITION, counting only positions that yield at least one
 * history entry; a page holds up to `limit` such positions with all their entries, oldest
 * first, and at most `maxBytes` of entry JSON: the byte budget wins over the count (the page
 * says so in `byte_limited`), and a page always holds at least one entry, so paging always
 * moves on. When the budget runs out inside one position's entries the page ends there and its
 * token carries the entry index, so even a position whose entries are larger than the budget
 * together is read in bounded pages. Every entry is bounded on its own (bounded-entry.ts).
 * The first read fixes `upper` (the log's head position then, reported as `high_water`) and
 * every token carries it, so paging to `older: null` or `newer: null` visits each entry that
 * existed at the first read exactly once, however much is appended in between. `after` is
 * exclusive except `after=0`, which reads from the start: position 0 is the session_start entry,
 * which holds a fork's copied history and has nothing before it. A page reads only a window of
 * the log around its cut (history-log.ts): enough positions on each side to fill it and to know
 * whether more lie beyond, back to the tool calls its tool results are named after. Errors of
 * the log's reads (storage failures, LogCorruptError) propagate unchanged.
 */
import type { HistoryEntry, HistoryPage } from "../../api/history.js";
import type { PositionedEntry } from "../../log/entries.js";
import { HistoryQueryInvalidError } from "../errors.js";
import { boundEntry, type ContentLimits, defaultContentLimits } from "./bounded-entry.js";
import type { HistoryLog } from "./history-log.js";
import {
  type HistoryDirection,
  type HistoryTokenSecret,
  signHistoryToken,
  verifyHistoryToken,
} from "./history-token.js";
import {
  projectEntry,
  projectsToHistory,
  recordToolNames,
  type ToolNames,
  toolResultCallIds,
} from "./project-history.js";

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
  /** Byte budget of the page's entries (default `maxPageBytes`). */
  maxBytes?: number;
  /** Bounds of each entry's content (default `defaultContentLimits`). */
  contentLimits?: ContentLimits;
  /** Entries read per step while the page's window grows (default 256; tests use small ones). */
  readStep?: number;
}

const defaultHistoryLimit = 100;
const maxHistoryLimit = 200;
const defaultTail = 100;

/** Byte budget of a history answer's entries: with its envelope the answer stays within 1 MiB. */
const maxPageBytes = 1024 * 1024 - 8 * 1024;

/** Byte budget of a snapshot's entries: with the session's other fields it stays within 1 MiB. */
export const maxTailBytes = 1024 * 1024 - 64 * 1024;

/**
 * A point between two history entries: before entry `index` of log position `position`. An
 * older page takes entries before it, a newer page the entries from it on.
 */
interface Cut {
  position: number;
  index: number;
}

interface Window {
  sessionId: string;
  direction: HistoryDirection;
  cut: Cut;
  upper: number;
  /** How many positions to take. */
  take: number;
  /** The limit tokens of this page are bound to. */
  tokenLimit: number;
  secret: HistoryTokenSecret;
  now: number;
  maxBytes: number;
  contentLimits: ContentLimits;
  readStep: number;
}

/**
 * One page of a session's history: the newest page when no position is given, backwards from
 * `before`, forwards from `after`, or wherever a `next` token points. Token errors are thrown
 * before the log is read.
 */
export async function readHistoryPage(log: HistoryLog, request: HistoryPageRequest): Promise<HistoryPage> {
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
    maxBytes: request.maxBytes ?? maxPageBytes,
    contentLimits: request.contentLimits ?? defaultContentLimits,
    readStep: request.readStep ?? defaultReadStep,
  };
  if (request.next !== undefined) {
    const token = verifyHistoryToken(request.next, {
      secret: request.secret,
      sessionId: request.sessionId,
      limit,
      now: request.now,
      ...(request.tokenTtlMs === undefined ? {} : { ttlMs: request.tokenTtlMs }),
    });
    const cut =
      token.direction === "newer" && token.index === undefined
        ? { position: token.bound + 1, index: 0 }
        : { position: token.bound, index: token.index ?? 0 };
    return readPage(log, { ...common, direction: token.direction, cut, upper: token.upper });
  }
  const upper = log.head;
  if (request.after !== undefined) {
    // Position 0 (session_start) precedes everything, so after=0 means "from the start".
    const position = request.after === 0 ? 0 : request.after + 1;
    return readPage(log, { ...common, direction: "newer", cut: { position, index: 0 }, upper });
  }
  const position = request.before ?? upper + 1;
  return readPage(log, { ...common, direction: "older", cut: { position, index: 0 }, upper });
}

/**
 * The snapshot's history: the newest `tail` positions (default 100, 0..200) and an `older` token
 * bound to limit=`tail` (to limit=100 when tail is 0, which gives no items but still a token when
 * the log has history).
 */
export function readTailPage(
  log: HistoryLog,
  options: {
    sessionId: string;
    tail?: number;
    secret: HistoryTokenSecret;
    now: number;
    maxBytes?: number;
    contentLimits?: ContentLimits;
    readStep?: number;
  },
): Promise<HistoryPage> {
  const tail = options.tail ?? defaultTail;
  if (!Number.isSafeInteger(tail) || tail < 0 || tail > maxHistoryLimit) {
    return Promise.reject(
      new HistoryQueryInvalidError(`tail must be an integer from 0 to ${maxHistoryLimit}`),
    );
  }
  const upper = log.head;
  return readPage(log, {
    sessionId: options.sessionId,
    direction: "older",
    cut: { position: upper + 1, index: 0 },
    upper,
    take: tail,
    tokenLimit: tail === 0 ? defaultHistoryLimit : tail,
    secret: options.secret,
    now: options.now,
    maxBytes: options.maxBytes ?? maxTailBytes,
    contentLimits: options.contentLimits ?? defaultContentLimits,
    readStep: options.readStep ?? defaultReadStep,
  });
}

/** Entries read per step while a page's window grows. */
const defaultReadStep = 256;

/** The page of `window`, computed over only the part of the log it depends on. */
async function readPage(log: HistoryLog, window: Window): Promise<HistoryPage> {
  return pageOf(await readWindow(log, window), window);
}

/**
 * The entries a page depends on: from its cut forwards and backwards until each side holds the
 * history positions the page may take plus one (which says whether more lie beyond), backwards
 * further while a tool result in it names a call not in it. The page computed over them equals
 * the page computed over the whole log up to `upper`.
 */
async function readWindow(log: HistoryLog, window: Window): Promise<PositionedEntry[]> {
  const last = Math.min(window.upper, log.head);
  if (last < 0) return [];
  const pivot = Math.min(Math.max(window.cut.position, 0), last + 1);
  const older = window.direction === "older";
  // Positions >= pivot and < pivot the page needs to see; the cut's own position counts on both sides.
  const wantAfter = (older ? 1 : window.take + 1) + 1;
  const wantBefore = (older ? window.take + 1 : 1) + 1;

  const after: PositionedEntry[] = [];
  let seenAfter = 0;
  const step = Math.max(1, Math.floor(window.readStep));
  for (let next = pivot; next <= last && seenAfter < wantAfter; next += step) {
    const chunk = await log.read(next, Math.min(last, next + step - 1));
    for (const placed of chunk) {
      after.push(placed);
      if (projectsToHistory(placed.entry)) seenAfter++;
    }
  }

  let before: PositionedEntry[] = [];
  let seenBefore = 0;
  let low = pivot;
  while (low > 0 && (seenBefore < wantBefore || unnamedResults(before, after))) {
    const from = Math.max(0, low - step);
    const chunk = await log.read(from, low - 1);
    for (const placed of chunk) if (projectsToHistory(placed.entry)) seenBefore++;
    before = before.length === 0 ? [...chunk] : chunk.concat(before);
    low = from;
  }
  return before.concat(after);
}

/** Whether a tool result in `first` then `second` names a call that neither holds before it. */
function unnamedResults(first: readonly PositionedEntry[], second: readonly PositionedEntry[]): boolean {
  const names: ToolNames = new Map();
  for (const part of [first, second]) {
    for (const { entry } of part) {
      for (const callId of toolResultCallIds(entry)) if (!names.has(callId)) return true;
      recordToolNames(entry, names);
    }
  }
  return false;
}

/** One entry taken into a page, with where it sits. */
interface Taken {
  position: number;
  index: number;
  entry: HistoryEntry;
}

function pageOf(entries: readonly PositionedEntry[], window: Window): HistoryPage {
  const { cut } = window;
  const positions: number[] = [];
  for (const { position, entry } of entries) {
    if (position <= window.upper && projectsToHistory(entry)) positions.push(position);
  }
  const older = window.direction === "older";
  // The positions the page may take, in the order it takes them (newest first for older pages).
  let candidates: number[];
  if (older) {
    const below = positions.filter((p) => p < cut.position || (p === cut.position && cut.index > 0));
    candidates = window.take === 0 ? [] : below.slice(Math.max(0, below.length - window.take)).reverse();
  } else {
    candidates = positions.filter((p) => p >= cut.position).slice(0, window.take);
  }
  const projected = projectPositions(entries, candidates, window);

  const taken: Taken[] = [];
  let used = 0;
  let byteLimited = false;
  walk: for (const position of candidates) {
    const list = projected.get(position) ?? [];
    const indices = list.map((_, index) => index).filter((index) => inside(window, position, index));
    if (older) indices.reverse();
    for (const index of indices) {
      const entry = list[index]!;
      const size = Buffer.byteLength(JSON.stringify(entry), "utf8") + 1;
      if (taken.length > 0 && used + size > window.maxBytes) {
        byteLimited = true;
        break walk;
      }
      used += size;
      taken.push({ position, index, entry });
    }
  }
  if (older) taken.reverse();

  const first = taken[0];
  const last = taken[taken.length - 1];
  let olderCut: Cut | null;
  let newerCut: Cut | null;
  if (first === undefined || last === undefined) {
    olderCut = positions.some((p) => p < cut.position) ? cut : null;
    newerCut = positions.some((p) => p >= cut.position) ? cut : null;
  } else {
    olderCut =
      first.index > 0 || positions[0]! < first.position
        ? { position: first.position, index: first.index }
        : null;
    const lastCount = projected.get(last.position)?.length ?? 0;
    newerCut =
      last.index + 1 < lastCount
        ? { position: last.position, index: last.index + 1 }
        : positions[positions.length - 1]! > last.position
          ? { position: last.position + 1, index: 0 }
          : null;
  }

  return {
    items: taken.map((t) => t.entry),
    older: olderCut === null ? null : token(window, "older", olderCut),
    newer: newerCut === null ? null : token(window, "newer", newerCut),
    high_water: window.upper,
    byte_limited: byteLimited,
  };
}

/** Whether entry `index` of `position` lies on the page's side of its cut. */
function inside(window: Window, position: number, index: number): boolean {
  const { cut } = window;
  if (position !== cut.position) return window.direction === "older" ? position < cut.position : true;
  return window.direction === "older" ? index < cut.index : index >= cut.index;
}

/** The bounded history entries of each wanted position. */
function projectPositions(
  entries: readonly PositionedEntry[],
  wanted: readonly number[],
  window: Window,
): Map<number, HistoryEntry[]> {
  const projected = new Map<number, HistoryEntry[]>();
  if (wanted.length === 0) return projected;
  const set = new Set(wanted);
  const last = Math.max(...wanted);
  // Tool results are named after calls that may sit anywhere earlier in the log.
  const names: ToolNames = new Map();
  for (const placed of entries) {
    if (placed.position > last) break;
    if (set.has(placed.position)) {
      projected.set(
        placed.position,
        projectEntry(placed, names).map((entry) => boundEntry(entry, window.sessionId, window.contentLimits)),
      );
    } else {
      recordToolNames(placed.entry, names);
    }
  }
  return projected;
}

function token(window: Window, direction: HistoryDirection, cut: Cut): string {
  // A newer token without an index reads the positions above `bound`; an older one those below it.
  const place =
    cut.index > 0
      ? { bound: cut.position, index: cut.index }
      : { bound: direction === "older" ? cut.position : cut.position - 1 };
  return signHistoryToken(
    {
      sessionId: window.sessionId,
      limit: window.tokenLimit,
      direction,
      ...place,
      upper: window.upper,
      issuedAt: window.now,
    },
    window.secret,
  );
}
