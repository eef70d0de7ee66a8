import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import { collectState } from "../../src/log/collect-state.js";
import type { LogEntry } from "../../src/log/entries.js";
import { hashEntry } from "../../src/log/entry-hash.js";
import { AppendConflictError, UnknownEntryError } from "../../src/log/errors.js";
import { FsStore } from "../../src/log/fs-store.js";
import type { RestoredState } from "../../src/log/restored-state.js";
import type { LogHeadRef, SessionStartState } from "../../src/log/session-log.js";
import {
  classifyDelta,
  createSession,
  ensureHeadOrFork,
  fork,
  forkAt,
  restore,
  saveCacheLocked,
  saveCacheUnlocked,
  saveConfigChanged,
  saveDelta,
  saveNote,
  saveOutcome,
  saveTurnEnd,
  saveUsage,
} from "../../src/log/session-log.js";
import { SqliteStore } from "../../src/log/sqlite-store.js";
import type { Store } from "../../src/log/store.js";
import type { Item } from "../../src/model/items.js";
import {
  assistantMessage,
  reasoning,
  systemMessage,
  toolCall,
  toolResult,
  userMessage,
} from "../../src/model/items.js";
import { itemArbitrary } from "./arbitraries.js";

const helpful: SessionStartState = {
  system_prompt: "You are helpful.",
  config: { max_tokens: 1024 },
  history: [],
};

/** The parts of a state a session_start can carry (what fork and forkAt must reproduce). */
function startable(state: RestoredState): string {
  return canonicalJson({ system_prompt: state.system_prompt, config: state.config, history: state.history });
}

describe("classifyDelta", () => {
  it("turns runs of items into user_input, assistant_items, tool_results and hook_injected_items", () => {
    const items: Item[] = [
      userMessage("Weather?"),
      reasoning("think"),
      toolCall("c1", "get_weather", '{"city":"Tokyo"}'),
      toolCall("c2", "get_time", "{}"),
      toolResult("c1", "Sunny"),
      toolResult("c2", "noon"),
      systemMessage("injected 1"),
      systemMessage("injected 2"),
      assistantMessage("It's sunny."),
      userMessage("Thanks"),
      userMessage("Bye"),
    ];
    const entries = classifyDelta(items, 7, { turn_id: "t1" });
    expect(entries).toEqual([
      { kind: "user_input", ts: 7, item: items[0], turn_id: "t1" },
      { kind: "assistant_items", ts: 7, items: items.slice(1, 4), turn_id: "t1" },
      { kind: "tool_results", ts: 7, items: items.slice(4, 6), turn_id: "t1" },
      { kind: "hook_injected_items", ts: 7, items: [items[6]], turn_id: "t1" },
      { kind: "hook_injected_items", ts: 7, items: [items[7]], turn_id: "t1" },
      { kind: "assistant_items", ts: 7, items: [items[8]], turn_id: "t1" },
      { kind: "user_input", ts: 7, item: items[9], turn_id: "t1" },
      { kind: "user_input", ts: 7, item: items[10], turn_id: "t1" },
    ]);
  });

  it("adds no context keys that were not given", () => {
    expect(Object.keys(classifyDelta([userMessage("x")], 1)[0]!)).toEqual(["kind", "ts", "item"]);
  });

  it("replays to exactly the items it was given, in order", () => {
    fc.assert(
      fc.property(fc.array(itemArbitrary, { maxLength: 12 }), (items) => {
        const replayed = collectState(
          [
            { kind: "session_start", ts: 0, system_prompt: null, config: {}, history: [] } as LogEntry,
            ...classifyDelta(items, 1),
          ].map((entry) => ({ hash: "", prev_hash: null, entry })),
        ).history;
        expect(replayed).toEqual(items);
      }),
      { numRuns: 200 },
    );
  });
});

const backends: [string, (dir: string) => Store][] = [
  ["FsStore", (dir) => new FsStore(dir)],
  ["SqliteStore", (dir) => new SqliteStore(join(dir, "log.sqlite"))],
];

describe.each(backends)("session log on %s", (_name, open) => {
  let dir: string;
  let store: Store;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "skein-session-log-"));
    store = open(dir);
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function runOnce(head: LogHeadRef, input: string, answer: string): Promise<void> {
    await saveDelta(store, head, [userMessage(input), assistantMessage(answer)]);
    await saveTurnEnd(store, head, 1);
    await saveOutcome(store, head, { type: "finished" }, false);
  }

  it("creates a session whose first entry is a session_start and keeps the head current", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "Hi", "Hello!");
    const entries = await store.readAll(head.sessionId);
    expect(entries.map((e) => e.entry.kind)).toEqual([
      "session_start",
      "user_input",
      "assistant_items",
      "turn_end",
      "run_outcome",
    ]);
    expect(entries[0]!.prev_hash).toBeNull();
    expect(head.hash).toBe(entries.at(-1)!.hash);
    expect(await store.readHead(head.sessionId)).toEqual({ hash: head.hash, position: 4 });
  });

  it("uses a given session id and refuses to create it twice", async () => {
    const { sessionId } = await createSession(store, helpful);
    const again = await createSession(store, helpful, { sessionId: "0190f5c8-0000-7000-8000-000000000001" });
    expect(again.sessionId).toBe("0190f5c8-0000-7000-8000-000000000001");
    await expect(createSession(store, helpful, { sessionId })).rejects.toBeInstanceOf(AppendConflictError);
  });

  it("restores what every save function wrote", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "Hi", "Hello!");
    await saveUsage(store, head, {
      history_len: 1,
      input_total_tokens: 50,
      cache_read_tokens: 0,
      cache_write_tokens: 40,
      output_tokens: 5,
    });
    await saveConfigChanged(store, head, { temperature: 0.7 });
    await saveCacheLocked(store, head, 2);
    await saveNote(store, head, "daemon", systemMessage("the daemon restarted"), { input_id: "in-1" });
    await saveOutcome(store, head, { type: "paused" }, true);

    const state = await restore(store, head.sessionId);
    expect(state).toEqual({
      system_prompt: "You are helpful.",
      config: { temperature: 0.7 },
      history: [userMessage("Hi"), assistantMessage("Hello!"), systemMessage("the daemon restarted")],
      request_count: 1,
      locked_prefix_len: 2,
      last_run_interrupted: true,
      head_hash: head.hash,
      usage_history: [
        {
          history_len: 1,
          input_total_tokens: 50,
          cache_read_tokens: 0,
          cache_write_tokens: 40,
          output_tokens: 5,
        },
      ],
      approval_policy: null,
      approval_mode: "ask",
      remembered_rules: [],
      pending_approvals: [],
      approval_decisions: {},
      history_positions: [1, 2, 8],
      next_position: 10,
      last_compaction: null,
      todos: [],
      budget: null,
      last_request_usage: null,
    });
    await saveCacheUnlocked(store, head);
    expect((await restore(store, head.sessionId)).locked_prefix_len).toBe(0);
  });

  it("writes a delta in one compare-and-append and leaves the head alone when it conflicts", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    const stale: LogHeadRef = { ...head };
    await saveDelta(store, head, [userMessage("first")]);
    await expect(saveDelta(store, stale, [userMessage("a"), assistantMessage("b")])).rejects.toBeInstanceOf(
      AppendConflictError,
    );
    expect(stale.hash).toBe(created.headHash);
    expect(await store.readAll(head.sessionId)).toHaveLength(2);
    expect(await saveDelta(store, head, [])).toBeNull();
  });

  it("forks into a new session holding only a session_start of the given state", async () => {
    const created = await createSession(store, { ...helpful, system_prompt: "System prompt" });
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "Hello", "Hello!");
    const source = await restore(store, head.sessionId);
    const forked = await fork(store, source);
    const entries = await store.readAll(forked.sessionId);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.entry.kind).toBe("session_start");
    expect(entries[0]!.entry).not.toHaveProperty("forked_from");
    expect(startable(collectState(entries))).toBe(startable(source));
    expect(forked.headHash).toBe(entries[0]!.hash);
  });

  it("forks at an entry with the state of the source up to and including it, pointing back at it", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "one", "1");
    await saveConfigChanged(store, head, { temperature: 0.2 });
    await runOnce(head, "two", "2");
    const all = await store.readAll(head.sessionId);
    for (let cut = 0; cut < all.length; cut++) {
      const forked = await forkAt(store, head.sessionId, all[cut]!.hash);
      const entries = await store.readAll(forked.sessionId);
      expect(entries).toHaveLength(1);
      const start = entries[0]!.entry;
      expect(start.kind === "session_start" && start.forked_from).toEqual({
        session_id: head.sessionId,
        entry_hash: all[cut]!.hash,
      });
      expect(startable(collectState(entries))).toBe(startable(collectState(all.slice(0, cut + 1))));
    }
    // The source is untouched.
    expect((await store.readAll(head.sessionId)).map((e) => e.hash)).toEqual(all.map((e) => e.hash));
  });

  it("forks in copy mode: the source's entries through the fork point, re-chained, the first pointing back", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "one", "1");
    await saveConfigChanged(store, head, { temperature: 0.2 });
    await saveNote(store, head, "daemon_restart", userMessage("restarted"), {
      turn_id: "t2",
      input_id: "i2",
    });
    await runOnce(head, "two", "2");
    const all = await store.readAll(head.sessionId);
    for (let cut = 0; cut < all.length; cut++) {
      const forked = await forkAt(store, head.sessionId, all[cut]!.hash, { mode: "copy" });
      const entries = await store.readAll(forked.sessionId);
      expect(entries.map((e) => e.position)).toEqual(all.slice(0, cut + 1).map((e) => e.position));
      expect(entries[0]!.entry).toEqual({
        ...all[0]!.entry,
        forked_from: { session_id: head.sessionId, entry_hash: all[cut]!.hash, position: cut },
      });
      expect(entries.slice(1).map((e) => e.entry)).toEqual(all.slice(1, cut + 1).map((e) => e.entry));
      // Its own chain: nothing of it is the source's.
      expect(entries[0]!.prev_hash).toBeNull();
      expect(entries.some((e) => all.some((source) => source.hash === e.hash))).toBe(false);
      expect(forked.headHash).toBe(entries.at(-1)!.hash);
      const { head_hash: _forkHead, ...state } = collectState(entries);
      const { head_hash: _sourceHead, ...sourceState } = collectState(all.slice(0, cut + 1));
      expect(state).toEqual(sourceState);
    }
    expect((await store.readAll(head.sessionId)).map((e) => e.hash)).toEqual(all.map((e) => e.hash));
  });

  it("points a copied fork of a fork at its own source only", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "one", "1");
    const source = await store.readAll(head.sessionId);
    const first = await forkAt(store, head.sessionId, source[2]!.hash, { mode: "copy" });
    const middle = await store.readAll(first.sessionId);
    const second = await forkAt(store, first.sessionId, middle[1]!.hash, { mode: "copy" });
    const start = (await store.readAll(second.sessionId))[0]!.entry;
    expect(start.kind === "session_start" && start.forked_from).toEqual({
      session_id: first.sessionId,
      entry_hash: middle[1]!.hash,
      position: 1,
    });
  });

  it("refuses to fork at a hash the source does not have", async () => {
    const created = await createSession(store, helpful);
    const sessionsBefore = await store.listSessions();
    const error = await forkAt(store, created.sessionId, "f".repeat(64)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnknownEntryError);
    expect((error as UnknownEntryError).entryHash).toBe("f".repeat(64));
    expect(await store.listSessions()).toEqual(sessionsBefore);
  });

  it("does nothing in ensureHeadOrFork while the writer still owns the head", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    await runOnce(head, "Hi", "Hello!");
    const before = { ...head };
    expect(await ensureHeadOrFork(store, head, helpful)).toBe(false);
    expect(head).toEqual(before);
    expect(await store.listSessions()).toEqual([head.sessionId]);
  });

  it("forks from the in-memory state when another writer appended behind our back", async () => {
    const created = await createSession(store, helpful);
    const head: LogHeadRef = { sessionId: created.sessionId, hash: created.headHash };
    const original = head.sessionId;
    const known = head.hash;
    // Another writer appends a correctly chained entry.
    const current = await store.readHead(original);
    await store.append(original, [
      hashEntry(current!.hash, { kind: "user_input", ts: 9999, item: userMessage("Interloper") }),
    ]);

    const memory: SessionStartState = { ...helpful, history: [userMessage("mine"), assistantMessage("ok")] };
    expect(await ensureHeadOrFork(store, head, memory)).toBe(true);
    expect(head.sessionId).not.toBe(original);
    const forkEntries = await store.readAll(head.sessionId);
    expect(forkEntries).toHaveLength(1);
    expect(head.hash).toBe(forkEntries[0]!.hash);
    const start = forkEntries[0]!.entry;
    expect(start.kind === "session_start" && start.forked_from).toEqual({
      session_id: original,
      entry_hash: known,
    });
    expect(collectState(forkEntries).history).toEqual(memory.history);

    const source = await store.readAll(original);
    expect(source).toHaveLength(2);
    expect(source[1]!.entry).toMatchObject({ kind: "user_input", item: userMessage("Interloper") });
    // The writer carries on in its fork.
    await saveTurnEnd(store, head, 1);
    expect(await store.readAll(head.sessionId)).toHaveLength(2);
  });
});
