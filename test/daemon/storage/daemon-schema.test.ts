import { describe, expect, it } from "vitest";
import { migrations } from "../../../src/daemon/storage/daemon-migrations.js";
import { schemaVersion } from "../../../src/daemon/storage/daemon-schema.js";

describe("the daemon's schema migrations", () => {
  // Branches that each add "the next" migration collide when merged: two steps with one number
  // would apply one and skip the other on every database already past it.
  it("are numbered 1, 2, 3, ... with no number used twice or skipped", () => {
    expect(migrations.map((migration) => migration.version)).toEqual(migrations.map((_, index) => index + 1));
    expect(schemaVersion).toBe(migrations.length);
  });
});
