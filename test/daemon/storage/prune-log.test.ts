/**
 * The storage's cut of a session's log (`pruneLog`) on both backends: it commits only on the
 * head it was planned from, so an append that came first makes it fail with nothing removed;
 * it refuses while an input waits or a turn runs; and the candidates retention reads skip such
 * sessions and say how large the others are.
 */
import { describe, expect, it } from "vitest";
import { SessionBusyError } from "../../../src/daemon/errors.js";
import { emptyPreview } from "../../../src/daemon/history/preview.js";
import type { SessionStorage } from "../../../src/daemon/storage/session-storage.js";
import type { LogEntry } from "../../../src/log/entries.js";
import { AppendConflictError } from "../../../src/log/errors.js";
import { type PrunePlan, planPrune } from "../../../src/log/prune-plan.js";
import { assistantMessage, userMessage } from "../../../src/model/items.js";
import { rejectionOf } from "../../support/rejection.js";
import { type StorageBackend, storageBackends } from "./storage-backends.js";

const backends = storageBackends("skein_prune");

const ts = 1_000;
/** A compacted session: start, three turns, a compaction keeping the last, one more turn. */
function compactedLog(): LogEntry[] {
  const turn = (i: number): LogEntry[] => [
    { kind: "user_input", ts, item: userMessage(`q${i}`) },
    { kind: "assistant_items", ts, items: [assistantMessage(`a${i} `.repeat(40))] },
    { kind: "turn_end", ts, turn_count: i + 1 },
  ];
  return [
    { kind: "session_start", ts, system_prompt: null, config: {}, history: [] },
    ...turn(0),
    ...turn(1),
    ...turn(2),
    { kind: "compaction", ts, summary: "s", first_kept_position: 7, before_tokens: 9, after_tokens: 1 },
    ...turn(3),
  ];
}

async function planned(storage: SessionStorage, id: string): Promise<{ head: string; plan: PrunePlan }> {
  const entries = await storage.readLog(id);
  const decision = planPrune(entries, { keep_entries: 2, above_bytes: 0 }, ts);
  if (decision.kind !== "prune") throw new Error(decision.reason);
  return { head: entries[entries.length - 1]!.hash, plan: decision.plan };
}

/** Fresh storage of `backend` holding session "s" with `compactedLog()`. */
async function compactedSession(backend: StorageBackend): Promise<SessionStorage> {
  const storage = await backend.open();
  await storage.createSession({ id: "s", workspace: "/tmp/w", createdAt: ts }, compactedLog(), emptyPreview);
  return storage;
}

describe.each(backends)("pruning a session's log on $name", (backend) => {
  it("cuts the log on the head it was planned from, and the cut log reads back", async () => {
    const storage = await compactedSession(backend);
    const [candidate] = await storage.retentionCandidates(null, 0);
    expect(candidate).toMatchObject({ id: "s", entries: 14, parentId: null });
    expect(candidate!.bytes).toBeGreaterThan(4 * 40 * 3);
    const { head, plan } = await planned(storage, "s");
    const stored = await storage.pruneLog("s", head, plan.entry);
    expect(stored.position).toBe(14);
    const entries = await storage.readLog("s");
    expect(entries[0]!.position).toBe(plan.upTo);
    const [after] = await storage.retentionCandidates(null, 0);
    expect(after!.entries).toBe(15 - plan.upTo);
  });

  it("reads a range that starts exactly at the cut, as one reaching before it does", async () => {
    const storage = await compactedSession(backend);
    const { head, plan } = await planned(storage, "s");
    await storage.pruneLog("s", head, plan.entry);
    const entries = await storage.readLog("s");
    expect(await storage.readLogRange("s", plan.upTo, 3)).toEqual(entries.slice(0, 3));
    expect(await storage.readLogRange("s", plan.upTo - 2, 5)).toEqual(entries.slice(0, 3));
    expect(await storage.readLogRange("s", 0, plan.upTo)).toEqual([]);
  });

  it("fails, removing nothing, when an append came first", async () => {
    const storage = await compactedSession(backend);
    const { head, plan } = await planned(storage, "s");
    const writer = storage.writerFrom("s", await storage.readLog("s"));
    await writer.append([{ kind: "user_input", ts, item: userMessage("late") }], {});
    await rejectionOf(storage.pruneLog("s", head, plan.entry), (e) => e instanceof AppendConflictError);
    const entries = await storage.readLog("s");
    expect(entries[0]!.position).toBe(0);
    expect(entries).toHaveLength(15);
  });

  it("refuses while an input waits, and leaves such a session out of the candidates", async () => {
    const storage = await compactedSession(backend);
    const { head, plan } = await planned(storage, "s");
    await storage.admitInput({
      session: "s",
      id: "i",
      kind: "message",
      intent: { text: "x" },
      acceptedAt: ts,
    });
    expect(await storage.retentionCandidates(Number.MAX_SAFE_INTEGER, 0)).toEqual([]);
    await rejectionOf(storage.pruneLog("s", head, plan.entry), (e) => e instanceof SessionBusyError);
    expect((await storage.readLog("s"))[0]!.position).toBe(0);
  });
});
