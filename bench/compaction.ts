/**
 * Compaction benchmarks.
 * 1. Restore of a 10,000-entry session (read + verify every hash and link + replay) with and
 *    without a compaction near its end, in the SQLite store; the replay alone; what the model's
 *    context holds afterwards. Verification stays honest: every load still reads and verifies
 *    the whole chain (no verified-prefix checkpoint exists), so the restore cost follows the
 *    log's length, not the kept tail; what a compaction shrinks is the context the replay
 *    hands the model (and so every request after it).
 * 2. Token savings on a scripted long session against the real daemon and the fake provider:
 *    the same 120 turns in an 8,000-token window with compaction at 80%, and with a window so
 *    large it never compacts; prompt tokens sent (summary requests included), the largest
 *    prompt, and how many requests of the uncompacted run a real 8,000-token model would have
 *    refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 as uuidv7 } from "uuid";
import { collectState } from "../src/log/collect-state.js";
import { planCompaction } from "../src/log/compaction-plan.js";
import type { LogEntry, PositionedEntry } from "../src/log/entries.js";
import { buildChain } from "../src/log/entry-hash.js";
import { SqliteStore } from "../src/log/sqlite-store.js";
import { assistantMessage, toolCall, toolResult, userMessage } from "../src/model/items.js";
import { estimateItemsTokens } from "../src/model/token-estimate.js";
import {
  compactionProfile,
  compactionScript,
  isSummaryRequest,
  scriptPrompt,
} from "../test/e2e/support/compaction-script.js";
import { DaemonHarness } from "../test/e2e/support/daemon-harness.js";
import { promptTokensOf } from "../test/support/fake-provider/context-overflow.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { type Figure, figure, writeReport } from "./report.js";

const ENTRIES = 10_000;
const filler = "The agent reads the file, thinks about the change and explains what it found. ";

/** A session log of `count` entries: turns of prompt, tool call, tool result, answer, turn end. */
function sessionLog(count: number): LogEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 1, system_prompt: "You are a helpful agent.", config: {}, history: [] },
  ];
  let turn = 0;
  while (entries.length < count) {
    const ts = 1_713_050_000_000 + entries.length;
    const id = `call_${turn}`;
    const text = `${turn}: ${filler.repeat(5)}`;
    const steps: LogEntry[] = [
      { kind: "user_input", ts, item: userMessage(text), turn_id: `t${turn}` },
      {
        kind: "assistant_items",
        ts,
        items: [toolCall(id, "read_file", JSON.stringify({ path: `src/f${turn}.ts` }))],
      },
      { kind: "tool_results", ts, items: [toolResult(id, text.repeat(2))] },
      { kind: "assistant_items", ts, items: [assistantMessage(text)] },
      { kind: "turn_end", ts, turn_count: turn + 1 },
    ];
    for (const step of steps) if (entries.length < count) entries.push(step);
    turn += 1;
  }
  return entries;
}

/** The same log with a compaction about `tail` entries before its end (same length). */
function compactedLog(count: number, tail: number): LogEntry[] {
  const head = sessionLog(count - tail);
  const state = collectState(head.map((entry) => ({ hash: "", prev_hash: null, entry })));
  const plan = planCompaction({
    items: state.history,
    positions: state.history_positions,
    nextPosition: head.length,
    keepTurns: 2,
    keepTokens: 2_000,
  });
  if (plan === null) throw new Error("nothing to compact");
  const compaction: LogEntry = {
    kind: "compaction",
    ts: 2,
    summary: filler.repeat(20),
    first_kept_position: plan.firstKeptPosition,
    before_tokens: plan.summarizedTokens + plan.keptTokens,
    after_tokens: plan.keptTokens,
    trigger: "auto",
  };
  const rest = sessionLog(count).slice(count - tail + 1);
  return [...head, compaction, ...rest];
}

/** Medians of `a` and `b` timed alternately (so drift on a shared machine hits both alike). */
async function pairedMediansMs(runs: number, a: () => unknown, b: () => unknown): Promise<[number, number]> {
  const time = async (task: () => unknown) => {
    const start = process.hrtime.bigint();
    await task();
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  for (let i = 0; i < 3; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    as.push(await time(a));
    bs.push(await time(b));
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  return [median(as), median(bs)];
}

async function restoreFigures(): Promise<Figure[]> {
  const dir = mkdtempSync(join(tmpdir(), "skein-bench-compaction-"));
  const store = new SqliteStore(join(dir, "store.sqlite"));
  try {
    const plainId = uuidv7();
    const compactedId = uuidv7();
    await store.append(plainId, buildChain(null, sessionLog(ENTRIES)));
    await store.append(compactedId, buildChain(null, compactedLog(ENTRIES, 100)));
    const restore = async (id: string) => collectState(await store.readAll(id));
    const [plainMs, compactedMs] = await pairedMediansMs(
      9,
      () => restore(plainId),
      () => restore(compactedId),
    );
    const plainRead: PositionedEntry[] = await store.readAll(plainId);
    const compactedRead: PositionedEntry[] = await store.readAll(compactedId);
    const [foldPlainMs, foldCompactedMs] = await pairedMediansMs(
      15,
      () => collectState(plainRead),
      () => collectState(compactedRead),
    );
    const plain = await restore(plainId);
    const compacted = await restore(compactedId);
    const plainTokens = estimateItemsTokens(plain.history);
    const compactedTokens = estimateItemsTokens(compacted.history);
    const [clonePlainMs, cloneCompactedMs] = await pairedMediansMs(
      9,
      () => structuredClone(plain.history),
      () => structuredClone(compacted.history),
    );
    return [
      figure(
        "restore_10k_compacted",
        compactedMs,
        "ms",
        plainMs,
        `SqliteStore readAll (parse + SHA-256 of every entry + link checks) + collectState of ${ENTRIES} entries with a compaction 100 entries before the end; baseline: the same length without a compaction. The whole chain is verified either way (no verified-prefix checkpoint), so restore cost follows the log, not the tail; ratio ~1 expected`,
      ),
      figure(
        "replay_fold_10k_compacted",
        foldCompactedMs,
        "ms",
        foldPlainMs,
        "collectState alone over entries already read and verified, with and without the compaction; lower is better",
      ),
      figure(
        "context_after_replay_tokens",
        compactedTokens,
        "tokens (estimate)",
        plainTokens,
        `the model's context after replay: ${compacted.history.length} items with the compaction against ${plain.history.length} without; lower is better`,
      ),
      figure(
        "request_history_copy_ms",
        cloneCompactedMs,
        "ms",
        clonePlainMs,
        "structuredClone of the replayed history (what the agent loop copies before each request when an interceptor is set); lower is better",
      ),
    ];
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

interface SessionRun {
  promptTokens: number;
  summaryTokens: number;
  largest: number;
  requests: number[];
  compactions: number;
}

/** 120 scripted turns against the daemon with the given window; prompt sizes as the fake counts them. */
async function scriptedSession(contextWindow: number): Promise<SessionRun> {
  const provider = await FakeProvider.start();
  provider.script = compactionScript("chat_completions");
  const app = await DaemonHarness.start({
    providers: {
      main: compactionProfile("chat_completions", provider, { contextWindow, compactThreshold: 0.8 }),
    },
  });
  try {
    writeFileSync(join(app.workspace, "notes.txt"), `${"the notes say hello. ".repeat(40)}\n`);
    const id = await app.createSession();
    for (let n = 0; n < 120; n++) await app.turn(id, scriptPrompt(n % 4 === 0 ? "tools" : "chat", n, 10));
    const model = provider.requests
      .filter((request) => !isSummaryRequest(request))
      .map((r) => promptTokensOf(r.rawBody));
    const summaries = provider.requests.filter(isSummaryRequest).map((r) => promptTokensOf(r.rawBody));
    const history = (await app.api(`/sessions/${id}/history?after=0&limit=200`)).json<{
      items: { kind: string }[];
    }>();
    return {
      promptTokens: model.reduce((a, b) => a + b, 0),
      summaryTokens: summaries.reduce((a, b) => a + b, 0),
      largest: Math.max(...model),
      requests: model,
      compactions: history.items.filter((entry) => entry.kind === "compaction").length,
    };
  } finally {
    await app.close();
    await provider.close();
  }
}

async function savingsFigures(): Promise<Figure[]> {
  const window = 8_000;
  const compacted = await scriptedSession(window);
  const plain = await scriptedSession(10_000_000);
  const refused = plain.requests.filter((tokens) => tokens > window).length;
  return [
    figure(
      "scripted_session_prompt_tokens",
      compacted.promptTokens + compacted.summaryTokens,
      "tokens",
      plain.promptTokens,
      `120 turns (every 4th with two tool calls): prompt tokens of every request with compaction in an ${window}-token window at 80% (${compacted.compactions} compactions; summary requests included: ${compacted.summaryTokens}) against the same turns never compacted; lower is better`,
    ),
    figure(
      "scripted_session_largest_prompt",
      compacted.largest,
      "tokens",
      plain.largest,
      `the largest prompt sent; without compaction ${refused} of ${plain.requests.length} requests would have been refused by an ${window}-token model`,
    ),
  ];
}

export async function run(): Promise<void> {
  writeReport("compaction", [...(await restoreFigures()), ...(await savingsFigures())]);
}
