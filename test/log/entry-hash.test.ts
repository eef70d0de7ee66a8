import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/log/canonical-json.js";
import type { LogEntry } from "../../src/log/entries.js";
import {
  buildChain,
  computeHash,
  hashEntry,
  InvalidEntryHashError,
  isEntryHash,
} from "../../src/log/entry-hash.js";
import { userMessage } from "../../src/model/items.js";

const start: LogEntry = {
  kind: "session_start",
  ts: 1,
  system_prompt: "You are helpful.",
  config: {},
  history: [],
};
const input: LogEntry = { kind: "user_input", ts: 2, item: userMessage("Hi") };

describe("entry hashes", () => {
  it("hashes 32 zero bytes then the canonical JSON for a first entry", () => {
    const expected = createHash("sha256")
      .update(Buffer.alloc(32))
      .update(Buffer.from(canonicalJson(start), "utf8"))
      .digest("hex");
    expect(computeHash(null, start)).toBe(expected);
  });

  it("hashes the 32 raw bytes of the previous hash, not its hex text", () => {
    const prev = computeHash(null, start);
    const expected = createHash("sha256")
      .update(Buffer.from(prev, "hex"))
      .update(canonicalJson(input))
      .digest("hex");
    expect(computeHash(prev, input)).toBe(expected);
  });

  it("is deterministic whatever the key order of the entry object", () => {
    const reordered = {
      history: [],
      config: {},
      system_prompt: "You are helpful.",
      ts: 1,
      kind: "session_start",
    };
    expect(computeHash(null, reordered as LogEntry)).toBe(computeHash(null, start));
  });

  it("gives different hashes for different content and for different predecessors", () => {
    const other: LogEntry = { kind: "user_input", ts: 2, item: userMessage("Ho") };
    const prev = computeHash(null, start);
    expect(computeHash(prev, other)).not.toBe(computeHash(prev, input));
    expect(computeHash(null, input)).not.toBe(computeHash(prev, input));
  });

  it("writes hashes as 64 lowercase hex digits that round-trip through bytes", () => {
    const hash = computeHash(null, start);
    expect(isEntryHash(hash)).toBe(true);
    expect(Buffer.from(hash, "hex").toString("hex")).toBe(hash);
    expect(isEntryHash(hash.toUpperCase())).toBe(false);
    expect(isEntryHash(hash.slice(1))).toBe(false);
  });

  it("rejects a malformed previous hash instead of hashing garbage", () => {
    expect(() => computeHash("zz", input)).toThrow(InvalidEntryHashError);
  });

  it("links a built chain prev to hash", () => {
    const chain = buildChain(null, [start, input, { kind: "turn_end", ts: 3, turn_count: 1 }]);
    expect(chain[0]!.prev_hash).toBeNull();
    expect(chain[1]!.prev_hash).toBe(chain[0]!.hash);
    expect(chain[2]!.prev_hash).toBe(chain[1]!.hash);
    expect(chain[2]!.hash).toBe(computeHash(chain[1]!.hash, chain[2]!.entry));
    expect(hashEntry(chain[0]!.hash, input)).toEqual(chain[1]);
  });
});
