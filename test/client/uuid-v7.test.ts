/**
 * The client's UUIDv7 ids: the daemon's format, the current time, strictly increasing.
 */
import { describe, expect, it } from "vitest";
import { uuidV7 } from "../../src/client/uuid-v7.js";

const shape = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("uuidV7", () => {
  it("has the lowercase UUIDv7 shape the daemon requires and carries the time", () => {
    const now = Date.now();
    const id = uuidV7(now);
    expect(id).toMatch(shape);
    expect(Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)).toBe(now);
  });

  it("stays strictly increasing within one millisecond and when the clock steps back", () => {
    const ids = [uuidV7(1_000), ...Array.from({ length: 5000 }, () => uuidV7(1_000)), uuidV7(999)];
    for (const id of ids) expect(id).toMatch(shape);
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
  });
});
