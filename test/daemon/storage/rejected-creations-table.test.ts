import { describe, expect, it } from "vitest";
import {
  forgetRejection,
  getRejection,
  maxDetailLength,
  recordRejection,
  rejectionTtlMs,
} from "../../../src/daemon/storage/rejected-creations-table.js";
import { tempDatabase } from "./temp-database.js";

const refusal = {
  status: 400,
  code: "invalid_request",
  detail: "workspace /nope is not an existing directory",
};

describe("the rejected_creations table", () => {
  it("remembers a refusal, replaces it when the id is refused again, and forgets it", () => {
    const { db } = tempDatabase();
    recordRejection(db, { id: "a", rejectedAt: 1000, ...refusal });
    expect(getRejection(db, "a", 2000)).toEqual({ id: "a", rejectedAt: 1000, ...refusal });
    recordRejection(db, {
      id: "a",
      rejectedAt: 3000,
      status: 404,
      code: "resource_not_found",
      detail: "gone",
    });
    expect(getRejection(db, "a", 3000)).toMatchObject({ rejectedAt: 3000, status: 404, detail: "gone" });
    forgetRejection(db, "a");
    expect(getRejection(db, "a", 3000)).toBeNull();
    expect(getRejection(db, "never", 3000)).toBeNull();
  });

  it("forgets refusals older than an id may be used, and drops them at the next record", () => {
    const { db } = tempDatabase();
    recordRejection(db, { id: "old", rejectedAt: 1000, ...refusal });
    expect(getRejection(db, "old", 1000 + rejectionTtlMs)).not.toBeNull();
    expect(getRejection(db, "old", 1001 + rejectionTtlMs)).toBeNull();
    recordRejection(db, { id: "new", rejectedAt: 1001 + rejectionTtlMs, ...refusal });
    expect(db.prepare("SELECT id FROM rejected_creations").all()).toEqual([{ id: "new" }]);
  });

  it("keeps at most the newest `limit` refusals and cuts long details", () => {
    const { db } = tempDatabase();
    for (let i = 0; i < 5; i++) recordRejection(db, { id: `r${i}`, rejectedAt: 1000 + i, ...refusal }, 3);
    const kept = db.prepare("SELECT id FROM rejected_creations ORDER BY id").all();
    expect(kept).toEqual([{ id: "r2" }, { id: "r3" }, { id: "r4" }]);
    recordRejection(db, { id: "long", rejectedAt: 2000, ...refusal, detail: "x".repeat(5000) });
    expect(getRejection(db, "long", 2000)?.detail).toHaveLength(maxDetailLength);
  });
});
