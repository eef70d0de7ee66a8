/**
 * A faithful port of the seed `session_test.rs`: every test, same names (camelCase), same
 * assertions, each run against every store (JSONL files, SQLite and PostgreSQL).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { collectState } from "../../src/log/collect-state.js";
import type { LogEntry, Outcome } from "../../src/log/entries.js";
import { computeHash } from "../../src/log/entry-hash.js";
import { FsStore } from "../../src/log/fs-store.js";
import { PgStore } from "../../src/log/pg-store.js";
import {
  createSession,
  ensureHeadOrFork,
  fork,
  forkAt,
  type LogHeadRef,
  restore,
  type SessionStartState,
  saveCacheLocked,
  saveCacheUnlocked,
  saveConfigChanged,
  saveDelta,
  saveOutcome,
  saveTurnEnd,
} from "../../src/log/session-log.js";
import { SqliteStore } from "../../src/log/sqlite-store.js";
import type { Store } from "../../src/log/store.js";
import {
  type StreamEvent,
  statusEvent,
  textBlockStart,
  textBlockStop,
  textDelta,
  toolInputDelta,
  toolUseStart,
  toolUseStop,
} from "../../src/model/events.js";
import { isUserMessage, userMessage } from "../../src/model/items.js";
import type { RequestConfig } from "../../src/model/request-config.js";
import type { ToolDefinition } from "../../src/model/tools.js";
import { Worker, WorkerError, type WorkerResult } from "../../src/worker/index.js";
import type { Interceptor } from "../../src/worker/interceptor.js";
import { MockLlmClient } from "../support/mock-llm-client.js";
import { createPgSchema } from "../support/pg-schema.js";

// =============================================================================
// Helpers
// =============================================================================

function simpleTextEvents(): StreamEvent[] {
  return [textBlockStart(0), textDelta(0, "Hello!"), textBlockStop(0), statusEvent("completed")];
}

function toolCallEvents(): StreamEvent[][] {
  return [
    // 1st response: tool call
    [
      toolUseStart(0, "call_1", "get_weather"),
      toolInputDelta(0, '{"city":"Tokyo"}'),
      toolUseStop(0),
      statusEvent("completed"),
    ],
    // 2nd response: final text
    [textBlockStart(0), textDelta(0, "It's sunny in Tokyo!"), textBlockStop(0), statusEvent("completed")],
  ];
}

function weatherToolDefinition(): ToolDefinition {
  return () => ({
    meta: {
      name: "get_weather",
      description: "Get weather",
      input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    tool: { execute: async () => "Sunny, 25C" },
  });
}

/** Policy that forces Pause on every turn end. */
const pausePolicy: Interceptor = { onRunEnd: () => ({ action: "pause" }) };

function startState(worker: Worker): SessionStartState {
  return { system_prompt: worker.systemPrompt, config: worker.requestConfig, history: worker.history };
}

/** Run a worker turn and persist it through the session-log functions, like the seed's helper. */
async function runAndPersist(
  worker: Worker,
  store: Store,
  head: LogHeadRef,
  input: string,
): Promise<{ worker: Worker; result: WorkerResult }> {
  const historyBefore = worker.history.length;

  const locked = worker.lock();
  let result: WorkerResult | WorkerError;
  try {
    result = await locked.run(input);
  } catch (error) {
    if (!(error instanceof WorkerError)) throw error;
    result = error;
  }
  const unlocked = locked.unlock();

  await saveDelta(store, head, unlocked.history.slice(historyBefore));
  await saveTurnEnd(store, head, unlocked.requestCount);

  const outcome: Outcome =
    result instanceof WorkerError ? { type: "error", message: result.message } : { type: result };
  await saveOutcome(store, head, outcome, unlocked.lastRunInterrupted);

  if (result instanceof WorkerError) throw result;
  return { worker: unlocked, result };
}

async function newSession(store: Store, worker: Worker): Promise<LogHeadRef> {
  const created = await createSession(store, startState(worker));
  return { sessionId: created.sessionId, hash: created.headHash };
}

// =============================================================================
// Tests, once per store
// =============================================================================

const stores: Array<[string, (dir: string) => Promise<Store>]> = [
  ["FsStore", (dir) => FsStore.open(dir)],
  ["SqliteStore", async (dir) => new SqliteStore(join(dir, "skein.sqlite"))],
  // In a schema of its own, dropped when the store closes.
  [
    "PgStore",
    async () => {
      const schema = await createPgSchema("skein_seed");
      const store = await PgStore.open({ connectionString: schema.url, max: 4 });
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        await schema.drop();
      };
      return store;
    },
  ],
];

describe.each(stores)("session log with %s", (_name, openStore) => {
  let dir = "";
  let store: Store | null = null;

  async function makeStore(): Promise<Store> {
    dir = mkdtempSync(join(tmpdir(), "skein-seed-"));
    store = await openStore(dir);
    return store;
  }

  afterEach(async () => {
    await store?.close();
    store = null;
    rmSync(dir, { recursive: true, force: true });
  });

  it("sessionRunLogsEntries", async () => {
    const store = await makeStore();
    const worker = new Worker(new MockLlmClient(simpleTextEvents()));
    const head = await newSession(store, worker);

    await runAndPersist(worker, store, head, "Hi");

    const entries = await store.readAll(head.sessionId);
    // SessionStart, UserInput, AssistantItems, TurnEnd, RunOutcome (at minimum)
    expect(entries.length, `expected at least 4 entries, got ${entries.length}`).toBeGreaterThanOrEqual(4);
    // First entry is SessionStart
    expect(entries[0]!.entry.kind).toBe("session_start");
    // Has a RunOutcome with Finished
    const hasFinished = entries.some(
      ({ entry }) => entry.kind === "run_outcome" && entry.outcome.type === "finished",
    );
    expect(hasFinished, "should have a Finished outcome").toBe(true);
    // Verify hash chain integrity
    expect(entries[0]!.prev_hash).toBeNull();
    for (let i = 1; i < entries.length; i++) {
      expect(entries[i]!.prev_hash, `hash chain broken at entry ${i}`).toBe(entries[i - 1]!.hash);
    }
  });

  it("sessionRestoreRoundTrip", async () => {
    const store = await makeStore();
    const worker = new Worker(new MockLlmClient(simpleTextEvents()));
    worker.setSystemPrompt("You are helpful.");
    const head = await newSession(store, worker);

    const { worker: after } = await runAndPersist(worker, store, head, "Hi");
    const originalHistoryLen = after.history.length;
    const originalRequestCount = after.requestCount;

    // Restore
    const state = await restore(store, head.sessionId);
    expect(state.history.length).toBe(originalHistoryLen);
    expect(state.request_count).toBe(originalRequestCount);
    expect(state.system_prompt).toBe("You are helpful.");
    expect(state.head_hash).toBe(head.hash);
  });

  it("sessionRunWithToolCall", async () => {
    const store = await makeStore();
    const worker = new Worker(MockLlmClient.withResponses(toolCallEvents()));
    worker.registerTool(weatherToolDefinition());
    const head = await newSession(store, worker);

    await runAndPersist(worker, store, head, "What's the weather?");

    const entries = await store.readAll(head.sessionId);
    expect(
      entries.some(({ entry }) => entry.kind === "tool_results"),
      "should have ToolResults entry",
    ).toBe(true);
    expect(
      entries.some(({ entry }) => entry.kind === "assistant_items"),
      "should have AssistantItems entry",
    ).toBe(true);
  });

  it("sessionResumeAfterPause", async () => {
    const store = await makeStore();
    // First run: tool call with pause policy → Paused
    const worker = new Worker(MockLlmClient.withResponses(toolCallEvents()));
    worker.registerTool(weatherToolDefinition());
    worker.setInterceptor(pausePolicy);
    const head = await newSession(store, worker);

    const { result } = await runAndPersist(worker, store, head, "Weather?");
    expect(result).toBe("paused");

    // Check RunOutcome is Paused
    const entries = await store.readAll(head.sessionId);
    const hasPaused = entries.some(
      ({ entry }) => entry.kind === "run_outcome" && entry.outcome.type === "paused",
    );
    expect(hasPaused, "should have Paused outcome").toBe(true);

    // Restore state and verify
    const state = await restore(store, head.sessionId);
    expect(state.last_run_interrupted).toBe(true);
  });

  it("sessionForkPreservesState", async () => {
    const store = await makeStore();
    const worker = new Worker(new MockLlmClient(simpleTextEvents()));
    worker.setSystemPrompt("System prompt");
    const head = await newSession(store, worker);

    const { worker: after } = await runAndPersist(worker, store, head, "Hello");
    const originalHistoryLen = after.history.length;
    const forked = await fork(store, startState(after));

    // Fork should have a SessionStart with the current history
    const forkEntries = await store.readAll(forked.sessionId);
    expect(forkEntries.length).toBe(1);
    expect(forkEntries[0]!.entry.kind).toBe("session_start");

    const forkState = collectState(forkEntries);
    expect(forkState.history.length).toBe(originalHistoryLen);
    expect(forkState.system_prompt).toBe("System prompt");
  });

  it("sessionForkAtTruncates", async () => {
    const store = await makeStore();
    const worker = new Worker(new MockLlmClient(simpleTextEvents()));
    const head = await newSession(store, worker);

    await runAndPersist(worker, store, head, "Hello");

    const allEntries = await store.readAll(head.sessionId);
    expect(allEntries.length).toBeGreaterThan(2);

    // Fork at the hash of the 2nd entry (SessionStart + UserInput)
    const atHash = allEntries[1]!.hash;
    const forked = await forkAt(store, head.sessionId, atHash);

    const forkEntries = await store.readAll(forked.sessionId);
    expect(forkEntries.length).toBe(1); // Just the new SessionStart

    const forkState = collectState(forkEntries);
    // Should have the state from replaying only the first 2 entries
    const originalTruncatedState = collectState(allEntries.slice(0, 2));
    expect(forkState.history.length).toBe(originalTruncatedState.history.length);
  });

  it("sessionConfigChangedLogged", async () => {
    const store = await makeStore();
    const worker = new Worker(new MockLlmClient([]));
    const head = await newSession(store, worker);

    // Modify config and log it
    const newConfig: RequestConfig = { temperature: 0.7 };
    worker.setRequestConfig(newConfig);
    await saveConfigChanged(store, head, newConfig);

    const entries = await store.readAll(head.sessionId);
    const hasConfigChanged = entries.some(
      ({ entry }) => entry.kind === "config_changed" && entry.config.temperature === 0.7,
    );
    expect(hasConfigChanged, "should have ConfigChanged entry").toBe(true);
  });

  it("sessionCacheLockUnlockLogged", async () => {
    const store = await makeStore();
    const worker = new Worker(new MockLlmClient([]));
    const head = await newSession(store, worker);

    await saveCacheLocked(store, head, 5);
    await saveCacheUnlocked(store, head);

    const entries = await store.readAll(head.sessionId);
    const hasLocked = entries.some(({ entry }) => entry.kind === "locked" && entry.locked_prefix_len === 5);
    expect(hasLocked, "should have Locked entry").toBe(true);
    const hasUnlocked = entries.some(({ entry }) => entry.kind === "cache_unlocked");
    expect(hasUnlocked, "should have CacheUnlocked entry").toBe(true);

    // State after all entries: unlocked
    const state = collectState(entries);
    expect(state.locked_prefix_len).toBe(0);
  });

  it("sessionAutoForksOnConflict", async () => {
    const store = await makeStore();
    // Create a session
    const workerA = new Worker(new MockLlmClient(simpleTextEvents()));
    const head = await newSession(store, workerA);
    const originalSid = head.sessionId;

    // Simulate another Pod writing to the same session behind our back
    const extraEntry: LogEntry = { kind: "user_input", ts: 9999, item: userMessage("Interloper") };
    const currentHead = (await store.readHead(originalSid))?.hash ?? null;
    const hash = computeHash(currentHead, extraEntry);
    await store.append(originalSid, [{ hash, prev_hash: currentHead, entry: extraEntry }]);

    // Now head.hash is stale — ensureHeadOrFork should auto-fork
    await ensureHeadOrFork(store, head, startState(workerA));

    // session id should now be different
    expect(head.sessionId).not.toBe(originalSid);

    // The fork session should exist and have entries
    const forkEntries = await store.readAll(head.sessionId);
    expect(forkEntries.length).toBeGreaterThan(0);

    // Original session should still have the interloper entry
    const originalEntries = await store.readAll(originalSid);
    const hasInterloper = originalEntries.some(
      ({ entry }) => entry.kind === "user_input" && isUserMessage(entry.item),
    );
    expect(hasInterloper).toBe(true);
  });
});
