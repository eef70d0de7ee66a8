import { createHash } from "node:crypto";
import fc from "fast-check";
import { v7 as uuidv7 } from "uuid";
import { describe, expect, it } from "vitest";
import { taskId } from "../../../src/daemon/task/task-id.js";

const uuidV7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const parents = fc.integer({ min: 0, max: 2 ** 48 - 1 }).map((msecs) => uuidv7({ msecs }));
const callIds = fc.string({ minLength: 1, maxLength: 64 });
const purposes = fc.constantFrom("session" as const, "input" as const);

describe("a task call's derived ids", () => {
  it("are lowercase UUIDv7s whose timestamp is the parent session id's", () => {
    fc.assert(
      fc.property(parents, callIds, purposes, (parent, call, purpose) => {
        const derived = taskId(purpose, parent, call);
        expect(derived).toMatch(uuidV7);
        expect(derived.slice(0, 13)).toBe(parent.slice(0, 13));
      }),
    );
  });

  it("are the same for the same parent and call, and differ by parent, call and purpose", () => {
    fc.assert(
      fc.property(parents, parents, callIds, callIds, (p, q, a, b) => {
        expect(taskId("session", p, a)).toBe(taskId("session", p, a));
        if (p !== q) expect(taskId("session", p, a)).not.toBe(taskId("session", q, a));
        if (a !== b) expect(taskId("session", p, a)).not.toBe(taskId("session", p, b));
        expect(taskId("session", p, a)).not.toBe(taskId("input", p, a));
      }),
    );
  });

  it("follow the documented derivation byte for byte", () => {
    const parent = "019b7d81-8980-7000-8000-000000000000";
    const digest = createHash("sha256").update(`skein-task:session:${parent}:call_1`).digest();
    const hex = (bytes: number[]) => bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
    const randA = hex([0x70 | (digest[0]! & 0x0f), digest[1]!]);
    const randB = hex([0x80 | (digest[2]! & 0x3f), ...digest.subarray(3, 10)]);
    expect(taskId("session", parent, "call_1")).toBe(
      `019b7d81-8980-${randA}-${randB.slice(0, 4)}-${randB.slice(4)}`,
    );
  });

  it("take timestamp 0 for a parent id that is no UUIDv7", () => {
    expect(taskId("input", "not-a-uuid", "c").slice(0, 13)).toBe("00000000-0000");
  });
});
