import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { HistoryEntry, HistoryPage } from "../../../src/api/history.js";
import {
  HistoryQueryInvalidError,
  HistoryTokenExpiredError,
  HistoryTokenInvalidError,
} from "../../../src/daemon/errors.js";
import { boundEntry } from "../../../src/daemon/history/bounded-entry.js";
import { type HistoryLog, wholeLog } from "../../../src/daemon/history/history-log.js";
import { readHistoryPage, readTailPage } from "../../../src/daemon/history/history-page.js";
import { verifyHistoryToken } from "../../../src/daemon/history/history-token.js";
import { projectLog } from "../../../src/daemon/history/project-history.js";
import type { LogEntry, PositionedEntry } from "../../../src/log/entries.js";
import { LogCorruptError } from "../../../src/log/errors.js";
import {
  assistantMessage,
  type Item,
  reasoning,
  systemMessage,
  toolCall,
  toolResult,
  userMessage,
} from "../../../src/model/items.js";
import { placeLog, sessionStart, ts0 } from "./log-fixtures.js";

const secret = "history-test-secret";
const now = ts0 + 60_000;
const sessionId = "s1";

/** A growing log; `read` is the log as it is now, read by range (each range read counted). */
class GrowingLog {
  entries: PositionedEntry[];
  reads = 0;

  constructor(initial: readonly LogEntry[]) {
    this.entries = placeLog(initial);
  }

  append(more: readonly LogEntry[]): void {
    this.entries.push(...placeLog(more, this.entries.length));
  }

  get read(): HistoryLog {
    const entries = this.entries.slice();
    return {
      head: entries.length - 1,
      read: async (from, to) => {
        expect(0 <= from && from <= to && to < entries.length).toBe(true);
        this.reads += 1;
        return entries.slice(from, to + 1);
      },
    };
  }
}

const turn = (text: string, answer: string): LogEntry[] => [
  { kind: "user_input", ts: ts0, item: userMessage(text), input_id: `in-${text}` },
  { kind: "assistant_items", ts: ts0, items: [reasoning("thinking"), assistantMessage(answer)] },
  { kind: "turn_end", ts: ts0, turn_count: 1 },
];

const userTexts = (items: readonly HistoryEntry[]) =>
  items
    .filter((e) => e.kind === "user")
    .flatMap((e) => e.content.flatMap((p) => (p.kind === "text" ? [p.text] : [])));

const entryBytes = (items: readonly HistoryEntry[]) =>
  items.reduce((sum, e) => sum + Buffer.byteLength(JSON.stringify(e)) + 1, 0);

const positionsOf = (page: HistoryPage) => [...new Set(page.items.map((e) => e.position))];

describe("history pages", () => {
  it("reads the newest page backwards and pages older with a token bound to the same limit", async () => {
    // Positions: 0 start, 1 user, 2 assistant, 3 turn_end, 4 user, 5 assistant, 6 turn_end.
    const log = new GrowingLog([
      sessionStart(),
      ...turn("oldest prompt", "a1"),
      ...turn("newest prompt", "a2"),
    ]);
    const first = await readHistoryPage(log.read, { sessionId, limit: 3, secret, now });
    expect(positionsOf(first)).toEqual([2, 4, 5]);
    expect(first.items.map((e) => e.id)).toEqual(["2-0", "2-1", "4", "5-0", "5-1"]);
    expect(userTexts(first.items)).toEqual(["newest prompt"]);
    expect(first.high_water).toBe(6);
    expect(first.newer).toBeNull();
    expect(first.older).not.toBeNull();

    const older = await readHistoryPage(log.read, { sessionId, limit: 3, next: first.older!, secret, now });
    expect(older.items.map((e) => e.id)).toEqual(["1"]);
    expect(userTexts(older.items)).toEqual(["oldest prompt"]);
    expect(older.older).toBeNull();
    expect(older.newer).not.toBeNull();
    expect(older.high_water).toBe(6);

    const back = await readHistoryPage(log.read, { sessionId, limit: 3, next: older.newer!, secret, now });
    expect(back.items).toEqual(first.items);
  });

  it("reads forwards from after=0 including a fork's copied history at position 0", async () => {
    const log = new GrowingLog([sessionStart([userMessage("copied")]), ...turn("q", "a")]);
    const page = await readHistoryPage(log.read, { sessionId, limit: 2, after: 0, secret, now });
    expect(page.items.map((e) => e.id)).toEqual(["0", "1"]);
    expect(page.older).toBeNull();
    const rest = await readHistoryPage(log.read, { sessionId, limit: 2, next: page.newer!, secret, now });
    expect(rest.items.map((e) => e.id)).toEqual(["2-0", "2-1"]);
    expect(rest.newer).toBeNull();
    expect(rest.older).not.toBeNull();
  });

  it("reads before and after an explicit position, exclusive", async () => {
    const log = new GrowingLog([sessionStart(), ...turn("a", "b"), ...turn("c", "d")]);
    const before = await readHistoryPage(log.read, { sessionId, limit: 10, before: 4, secret, now });
    expect(positionsOf(before)).toEqual([1, 2]);
    expect(before.older).toBeNull();
    expect(before.newer).not.toBeNull();
    const after = await readHistoryPage(log.read, { sessionId, limit: 10, after: 2, secret, now });
    expect(positionsOf(after)).toEqual([4, 5]);
    expect(after.newer).toBeNull();
    expect(after.older).not.toBeNull();
  });

  it("answers an empty page with tokens that still lead to the entries on either side", async () => {
    const log = new GrowingLog([sessionStart(), ...turn("a", "b")]);
    const beyond = await readHistoryPage(log.read, { sessionId, limit: 5, after: 50, secret, now });
    expect(beyond.items).toEqual([]);
    expect(beyond.newer).toBeNull();
    const back = await readHistoryPage(log.read, { sessionId, limit: 5, next: beyond.older!, secret, now });
    expect(positionsOf(back)).toEqual([1, 2]);

    const before = await readHistoryPage(log.read, { sessionId, limit: 5, before: 1, secret, now });
    expect(before.items).toEqual([]);
    expect(before.older).toBeNull();
    const forward = await readHistoryPage(log.read, {
      sessionId,
      limit: 5,
      next: before.newer!,
      secret,
      now,
    });
    expect(positionsOf(forward)).toEqual([1, 2]);
  });

  it("has no items and no tokens for a session with no history yet", async () => {
    const log = new GrowingLog([sessionStart(), { kind: "config_changed", ts: ts0, config: {} }]);
    expect(await readHistoryPage(log.read, { sessionId, secret, now })).toEqual({
      items: [],
      older: null,
      newer: null,
      high_water: 1,
      byte_limited: false,
    });
  });

  it("never shows entries appended after the first read on later pages", async () => {
    const log = new GrowingLog([sessionStart(), ...turn("a", "b"), ...turn("c", "d")]);
    const first = await readHistoryPage(log.read, { sessionId, limit: 1, after: 0, secret, now });
    log.append(turn("late", "reply"));
    const pages = [first];
    while (pages.at(-1)!.newer !== null) {
      pages.push(
        await readHistoryPage(log.read, { sessionId, limit: 1, next: pages.at(-1)!.newer!, secret, now }),
      );
    }
    expect(userTexts(pages.flatMap((p) => p.items))).toEqual(["a", "c"]);
    expect(pages.every((p) => p.high_water === 6)).toBe(true);
    const fresh = await readHistoryPage(log.read, { sessionId, limit: 1, after: 6, secret, now });
    expect(userTexts(fresh.items)).toEqual(["late"]);
  });

  it("checks the token before reading the log", async () => {
    const log = new GrowingLog([sessionStart(), ...turn("a", "b")]);
    const first = await readHistoryPage(log.read, { sessionId, limit: 1, secret, now });
    const reads = log.reads;
    await expect(
      readHistoryPage(log.read, { sessionId: "s2", limit: 1, next: first.older!, secret, now }),
    ).rejects.toThrow(HistoryTokenInvalidError);
    await expect(
      readHistoryPage(log.read, { sessionId, limit: 2, next: first.older!, secret, now }),
    ).rejects.toThrow(HistoryTokenInvalidError);
    await expect(
      readHistoryPage(log.read, { sessionId, limit: 1, next: first.older!, secret, now: now + 3_600_001 }),
    ).rejects.toThrow(HistoryTokenExpiredError);
    await expect(
      readHistoryPage(log.read, {
        sessionId,
        limit: 1,
        next: first.older!,
        secret,
        now: now + 1001,
        tokenTtlMs: 1000,
      }),
    ).rejects.toThrow(HistoryTokenExpiredError);
    expect(log.reads).toBe(reads);
  });

  it("passes a storage error and a corrupt log through unchanged", async () => {
    const corrupt = new LogCorruptError(sessionId, 3, "hash mismatch");
    await expect(
      readHistoryPage(
        {
          head: 3,
          read: () => {
            throw corrupt;
          },
        },
        { sessionId, secret, now },
      ),
    ).rejects.toBe(corrupt);
    const unavailable = Object.assign(new Error("no such table: transcript"), { code: "SQLITE_ERROR" });
    await expect(
      readHistoryPage({ head: 3, read: async () => Promise.reject(unavailable) }, { sessionId, secret, now }),
    ).rejects.toBe(unavailable);
  });

  it("names a tool result after its call even when the call lies far before the page's window", async () => {
    const chatter = Array.from(
      { length: 20 },
      (_, i): LogEntry => ({
        kind: "user_input",
        ts: ts0,
        item: userMessage(`m${i}`),
      }),
    );
    const log = new GrowingLog([
      sessionStart(),
      { kind: "assistant_items", ts: ts0, items: [toolCall("c1", "alpha", "{}")] },
      ...chatter,
      { kind: "tool_results", ts: ts0, items: [toolResult("c1", "out")] },
      { kind: "assistant_items", ts: ts0, items: [toolCall("c1", "beta", "{}")] },
    ]);
    const page = await readHistoryPage(log.read, {
      sessionId,
      limit: 1,
      before: 23,
      secret,
      now,
      readStep: 2,
    });
    expect(page.items.map((e) => [e.position, e.kind, e.tool?.name])).toEqual([[22, "tool_result", "alpha"]]);
    const tail = await readTailPage(log.read, { sessionId, tail: 2, secret, now, readStep: 2 });
    expect(tail.items.map((e) => e.tool?.name)).toEqual(["alpha", "beta"]);
  });

  it("refuses a limit outside 1..200 and more than one of next, before and after", async () => {
    const log = new GrowingLog([sessionStart()]);
    for (const limit of [0, 201, 1.5, -1]) {
      await expect(readHistoryPage(log.read, { sessionId, limit, secret, now })).rejects.toThrow(
        HistoryQueryInvalidError,
      );
    }
    await expect(readHistoryPage(log.read, { sessionId, before: 1, after: 1, secret, now })).rejects.toThrow(
      HistoryQueryInvalidError,
    );
    await expect(readHistoryPage(log.read, { sessionId, before: -1, secret, now })).rejects.toThrow(
      HistoryQueryInvalidError,
    );
    expect(log.reads).toBe(0);
  });
});

describe("snapshot tail pages", () => {
  it("holds the newest tail positions and an older token usable with limit=tail", async () => {
    const log = new GrowingLog([
      sessionStart(),
      ...turn("oldest prompt", "a1"),
      ...turn("newest prompt", "a2"),
    ]);
    const tail = await readTailPage(log.read, { sessionId, tail: 3, secret, now });
    expect(userTexts(tail.items)).toEqual(["newest prompt"]);
    expect(positionsOf(tail)).toEqual([2, 4, 5]);
    expect(tail).toMatchObject({ newer: null, high_water: 6 });
    const older = await readHistoryPage(log.read, { sessionId, limit: 3, next: tail.older!, secret, now });
    expect(userTexts(older.items)).toEqual(["oldest prompt"]);
    expect(older.older).toBeNull();
  });

  it("defaults to the newest 100 positions", async () => {
    const entries: LogEntry[] = [sessionStart()];
    for (let i = 0; i < 150; i++) entries.push({ kind: "user_input", ts: ts0, item: userMessage(`m${i}`) });
    const tail = await readTailPage(wholeLog(placeLog(entries)), { sessionId, secret, now });
    expect(tail.items).toHaveLength(100);
    expect(tail.items[0]!.position).toBe(51);
    expect(verifyHistoryToken(tail.older!, { secret, sessionId, limit: 100, now }).bound).toBe(51);
  });

  it("with tail=0 has no items but an older token (limit 100) when the log has history", async () => {
    const log = new GrowingLog([sessionStart(), ...turn("a", "b")]);
    const tail = await readTailPage(log.read, { sessionId, tail: 0, secret, now });
    expect(tail.items).toEqual([]);
    expect(tail.newer).toBeNull();
    const page = await readHistoryPage(log.read, { sessionId, next: tail.older!, secret, now });
    expect(positionsOf(page)).toEqual([1, 2]);
    expect(
      (await readTailPage(wholeLog(placeLog([sessionStart()])), { sessionId, tail: 0, secret, now })).older,
    ).toBeNull();
  });

  it("refuses a tail outside 0..200", async () => {
    for (const tail of [-1, 201, 2.5]) {
      await expect(
        readTailPage(wholeLog(placeLog([sessionStart()])), { sessionId, tail, secret, now }),
      ).rejects.toThrow(HistoryQueryInvalidError);
    }
  });
});

describe("history pages bounded by bytes", () => {
  const KiB = 1024;
  /** A log of user inputs of the given sizes (positions 1..n). */
  const sized = (sizes: number[]) =>
    new GrowingLog([
      sessionStart(),
      ...sizes.map(
        (size, i): LogEntry => ({ kind: "user_input", ts: ts0, item: userMessage(`${i}`.padEnd(size, "x")) }),
      ),
    ]);

  it("end a page early at the budget, say so, and go on from there with the token", async () => {
    const log = sized([200 * KiB, 200 * KiB, 200 * KiB, 200 * KiB, 200 * KiB, 200 * KiB, 200 * KiB]);
    const newest = await readHistoryPage(log.read, { sessionId, secret, now });
    expect(newest.byte_limited).toBe(true);
    expect(positionsOf(newest)).toEqual([3, 4, 5, 6, 7]);
    expect(Buffer.byteLength(JSON.stringify(newest))).toBeLessThanOrEqual(1024 * KiB);
    const older = await readHistoryPage(log.read, { sessionId, secret, now, next: newest.older! });
    expect(positionsOf(older)).toEqual([1, 2]);
    expect(older).toMatchObject({ older: null, byte_limited: false });
    const back = await readHistoryPage(log.read, { sessionId, secret, now, next: older.newer! });
    expect(positionsOf(back)).toEqual([3, 4, 5, 6, 7]);
  });

  it("always hold one entry, even one larger than the budget", async () => {
    const log = sized([300, 300]);
    const page = await readHistoryPage(log.read, { sessionId, secret, now, maxBytes: 10 });
    expect(positionsOf(page)).toEqual([2]);
    expect(page.byte_limited).toBe(true);
    const older = await readHistoryPage(log.read, {
      sessionId,
      secret,
      now,
      maxBytes: 10,
      next: page.older!,
    });
    expect(positionsOf(older)).toEqual([1]);
  });

  it("split the entries of one position over pages in both directions, and keep each page's count of positions", async () => {
    const forked = Array.from({ length: 6 }, (_, i) => userMessage(`copied ${i} `.padEnd(400, "y")));
    const log = new GrowingLog([sessionStart(forked), ...turn("after the fork", "answer")]);
    const one = Buffer.byteLength(JSON.stringify(projectLog(log.entries)[0])) + 1;
    const request = { sessionId, secret, now, limit: 2, maxBytes: 3 * one + 10 };
    const ids: string[][] = [];
    let page = await readHistoryPage(log.read, { ...request, after: 0 });
    ids.push(page.items.map((e) => e.id));
    while (page.newer !== null) {
      page = await readHistoryPage(log.read, { ...request, next: page.newer });
      ids.push(page.items.map((e) => e.id));
    }
    expect(ids.flat()).toEqual(projectLog(log.entries).map((e) => e.id));
    expect(ids[0]).toEqual(["0-0", "0-1", "0-2"]);
    expect(ids[1]).toEqual(["0-3", "0-4", "0-5"]);
    // From the middle of position 0, older pages read its first entries.
    const middle = await readHistoryPage(log.read, { ...request, after: 0 });
    const rest = await readHistoryPage(log.read, { ...request, next: middle.newer! });
    const before = await readHistoryPage(log.read, { ...request, next: rest.older! });
    expect(before.items.map((e) => e.id)).toEqual(["0-0", "0-1", "0-2"]);
    expect(before.older).toBeNull();
  });

  it("cut a snapshot's tail by bytes within its budget, with an older token bound to limit=tail", async () => {
    const log = sized(Array.from({ length: 12 }, () => 200 * KiB));
    const tail = await readTailPage(log.read, { sessionId, tail: 10, secret, now });
    expect(tail.byte_limited).toBe(true);
    expect(positionsOf(tail)).toEqual([9, 10, 11, 12]);
    expect(Buffer.byteLength(JSON.stringify(tail.items))).toBeLessThanOrEqual(960 * KiB);
    const older = await readHistoryPage(log.read, { sessionId, secret, now, limit: 10, next: tail.older! });
    expect(positionsOf(older)).toEqual([4, 5, 6, 7, 8]);
  });
});

describe("history paging under concurrent appends (property)", () => {
  const item: fc.Arbitrary<Item> = fc.oneof(
    fc.string({ maxLength: 5 }).map((t) => userMessage(t)),
    fc.string({ maxLength: 5 }).map((t) => assistantMessage(t)),
    fc.string({ maxLength: 120, unit: "binary" }).map((t) => assistantMessage(t)),
    fc.string({ maxLength: 5 }).map((t) => reasoning(t)),
    // Call ids repeat with different tools: a result is named after the nearest call before it.
    fc.tuple(fc.nat(3), fc.nat(2)).map(([n, k]) => toolCall(`c${n}`, `tool${k}`, `{"n":${n}}`)),
    fc.nat(3).map((n) => toolResult(`c${n}`, `out${n}`)),
  );
  const entry: fc.Arbitrary<LogEntry> = fc.oneof(
    fc.string({ maxLength: 5 }).map((t): LogEntry => ({ kind: "user_input", ts: ts0, item: userMessage(t) })),
    fc.array(item, { maxLength: 3 }).map((items): LogEntry => ({ kind: "assistant_items", ts: ts0, items })),
    fc.array(item, { maxLength: 2 }).map((items): LogEntry => ({ kind: "tool_results", ts: ts0, items })),
    fc.uuid().map((id): LogEntry => ({ kind: "continuation", ts: ts0, input_id: id })),
    fc.constant<LogEntry>({ kind: "note", ts: ts0, origin: "test", item: systemMessage("n") }),
    fc.constant<LogEntry>({ kind: "turn_end", ts: ts0, turn_count: 1 }),
    fc.constant<LogEntry>({ kind: "cache_unlocked", ts: ts0 }),
  );
  const start = fc.oneof(
    fc.constant({ kind: "newest" as const }),
    fc.constant({ kind: "tail" as const }),
    fc.nat(40).map((at) => ({ kind: "before" as const, at })),
    fc.nat(40).map((at) => ({ kind: "after" as const, at })),
  );

  const limits = { partBytes: 60, entryBytes: 100, previewBytes: 12 };

  it("visits every entry of the first read exactly once, in order, in either direction, within any byte budget", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(item, { maxLength: 3 }),
        fc.array(entry, { maxLength: 30 }),
        fc.integer({ min: 1, max: 6 }),
        start,
        fc.array(fc.array(entry, { maxLength: 3 }), { maxLength: 40 }),
        fc.option(fc.integer({ min: 1, max: 1500 }), { nil: undefined }),
        fc.integer({ min: 1, max: 5 }),
        async (forked, initial, limit, from, appends, maxBytes, readStep) => {
          const log = new GrowingLog([sessionStart(forked), ...initial]);
          const atFirstRead = log.entries.slice();
          const head = atFirstRead.length - 1;
          // Small read steps make every page read a window of the log, not all of it.
          const budget = { contentLimits: limits, readStep, ...(maxBytes === undefined ? {} : { maxBytes }) };
          const wanted = projectLog(atFirstRead)
            .map((e) => boundEntry(e, sessionId, limits))
            .filter((e) =>
              from.kind === "before"
                ? e.position < from.at
                : from.kind === "after" && from.at > 0
                  ? e.position > from.at
                  : true,
            );

          const request = { sessionId, limit, secret, now, ...budget };
          const first =
            from.kind === "tail"
              ? await readTailPage(log.read, { sessionId, tail: limit, secret, now, ...budget })
              : await readHistoryPage(log.read, {
                  ...request,
                  ...(from.kind === "before"
                    ? { before: from.at }
                    : from.kind === "after"
                      ? { after: from.at }
                      : {}),
                });
          const direction = from.kind === "after" ? "newer" : "older";
          const pages = [first];
          for (let i = 0; pages.at(-1)![direction] !== null; i++) {
            expect(i).toBeLessThan(100);
            log.append(appends[i % Math.max(appends.length, 1)] ?? []);
            pages.push(await readHistoryPage(log.read, { ...request, next: pages.at(-1)![direction]! }));
          }

          for (const page of pages) {
            expect(page.high_water).toBe(head);
            expect(positionsOf(page).length).toBeLessThanOrEqual(limit);
            if (maxBytes !== undefined && page.items.length > 1) {
              expect(entryBytes(page.items)).toBeLessThanOrEqual(maxBytes);
            }
            if (page.byte_limited) expect(page.items.length).toBeGreaterThan(0);
          }
          const ordered = direction === "older" ? pages.slice().reverse() : pages;
          const visited = ordered.flatMap((page) => page.items);
          expect(visited).toEqual(wanted);
        },
      ),
      { numRuns: 300 },
    );
  });
});
