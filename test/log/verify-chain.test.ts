import { describe, expect, it } from "vitest";
import type { HashedEntry, LogEntry } from "../../src/log/entries.js";
import { buildChain, computeHash } from "../../src/log/entry-hash.js";
import { LogCorruptError } from "../../src/log/errors.js";
import { verifyChain } from "../../src/log/verify-chain.js";
import { assistantMessage, userMessage } from "../../src/model/items.js";
import { thrownBy } from "../support/rejection.js";

function sampleChain(): HashedEntry[] {
  const entries: LogEntry[] = [
    { kind: "session_start", ts: 1, system_prompt: null, config: {}, history: [] },
    { kind: "user_input", ts: 2, item: userMessage("Hi") },
    { kind: "assistant_items", ts: 3, items: [assistantMessage("Hello!")] },
    { kind: "turn_end", ts: 4, turn_count: 1 },
    { kind: "run_outcome", ts: 5, outcome: { type: "finished" }, interrupted: false },
  ];
  return buildChain(null, entries);
}

function corruptionOf(run: () => void): LogCorruptError {
  return thrownBy(run, (error) => error instanceof LogCorruptError, "expected a LogCorruptError");
}

describe("verifyChain", () => {
  it("accepts an intact chain", () => {
    expect(() => verifyChain("s", sampleChain())).not.toThrow();
  });

  it("reports a tampered entry at its position", () => {
    const chain = sampleChain();
    chain[2] = {
      ...chain[2]!,
      entry: { kind: "assistant_items", ts: 3, items: [assistantMessage("Hacked")] },
    };
    const error = corruptionOf(() => verifyChain("s", chain));
    expect(error.sessionId).toBe("s");
    expect(error.position).toBe(2);
    expect(error.reason).toContain("hash mismatch");
  });

  it("reports a removed middle entry at the position where the link breaks", () => {
    const chain = sampleChain();
    chain.splice(2, 1);
    const error = corruptionOf(() => verifyChain("s", chain));
    expect(error.position).toBe(2);
    expect(error.reason).toContain("prev_hash");
  });

  it("reports a wrong prev_hash even when the entry's own hash was recomputed to match it", () => {
    const chain = sampleChain();
    const forged = chain[0]!.hash;
    chain[3] = { hash: computeHash(forged, chain[3]!.entry), prev_hash: forged, entry: chain[3]!.entry };
    expect(corruptionOf(() => verifyChain("s", chain)).position).toBe(3);
  });

  it("reports only the first bad entry", () => {
    const chain = sampleChain();
    chain[1] = { ...chain[1]!, hash: "0".repeat(64) };
    chain[3] = { ...chain[3]!, hash: "1".repeat(64) };
    expect(corruptionOf(() => verifyChain("s", chain)).position).toBe(1);
  });

  it("rejects a first entry that claims a predecessor", () => {
    const chain = sampleChain().slice(1);
    expect(corruptionOf(() => verifyChain("s", chain)).position).toBe(0);
  });

  it("verifies a run in the middle of a log against its known predecessor", () => {
    const chain = sampleChain();
    expect(() => verifyChain("s", chain.slice(2), { position: 2, prevHash: chain[1]!.hash })).not.toThrow();
    const error = corruptionOf(() =>
      verifyChain("s", chain.slice(2), { position: 2, prevHash: chain[0]!.hash }),
    );
    expect(error.position).toBe(2);
  });

  it("reports a malformed hash field", () => {
    const chain = sampleChain();
    chain[4] = { ...chain[4]!, hash: chain[4]!.hash.toUpperCase() };
    expect(corruptionOf(() => verifyChain("s", chain)).position).toBe(4);
  });
});
