import { describe, expect, it } from "vitest";
import type { SessionSnapshot } from "../../../src/api/session-snapshot.js";
import { maxTailBytes } from "../../../src/daemon/history/history-page.js";
import {
  emptyHistoryPage,
  historyBudget,
  idleStatus,
  maxSnapshotBytes,
  sameStatus,
} from "../../../src/daemon/session/session-snapshot.js";
import { sessionSnapshot } from "../../support/session-snapshot.js";

/** A snapshot with an empty history whose system prompt (echoed in `submitted`) has `promptBytes`. */
function snapshotEchoing(promptBytes: number): SessionSnapshot {
  return sessionSnapshot({
    provider_profile: null,
    model: null,
    status: idleStatus,
    creation: {
      kind: "new",
      submitted: { kind: "new", workspace: "/w", system_prompt: "p".repeat(promptBytes) },
    },
    history: emptyHistoryPage,
    settings: { provider_profile: null, model: null, request_config: {}, effective: null },
  });
}

describe("a snapshot's history budget", () => {
  it("is the usual 960 KiB while the other fields are small", () => {
    expect(historyBudget(snapshotEchoing(10))).toBe(maxTailBytes);
  });

  it("gives the history only what the other fields leave of 1 MiB", () => {
    for (const promptBytes of [60_000, 100_000, 500_000]) {
      const rest = snapshotEchoing(promptBytes);
      const budget = historyBudget(rest);
      expect(budget).toBeLessThan(maxTailBytes);
      expect(Buffer.byteLength(JSON.stringify(rest)) + budget).toBeLessThanOrEqual(
        maxSnapshotBytes - 8 * 1024,
      );
    }
    expect(historyBudget(snapshotEchoing(2_000_000))).toBe(0);
  });
});

describe("telling statuses apart", () => {
  it("sees a change in any field, the blocking reason's detail included", () => {
    const blocked = { ...idleStatus, blocking_reason: { code: "storage_unavailable", detail: "disk full" } };
    expect(sameStatus(idleStatus, { ...idleStatus })).toBe(true);
    expect(sameStatus(blocked, { ...blocked, blocking_reason: { ...blocked.blocking_reason } })).toBe(true);
    expect(sameStatus(idleStatus, blocked)).toBe(false);
    expect(
      sameStatus(blocked, { ...blocked, blocking_reason: { code: "storage_unavailable", detail: "other" } }),
    ).toBe(false);
    expect(sameStatus(idleStatus, { ...idleStatus, phase: "running" })).toBe(false);
    expect(sameStatus(idleStatus, { ...idleStatus, run_id: "r" })).toBe(false);
    expect(sameStatus(idleStatus, { ...idleStatus, interrupt_requested: true })).toBe(false);
  });
});
