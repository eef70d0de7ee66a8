/**
 * A session's creation as one commit, on a real SQLite file whose statements are counted: what
 * it stores (the row with its preview, the first entries) and what it costs, pinned so that the
 * statements cannot grow back unnoticed.
 */
import { describe, expect, it } from "vitest";
import { statementsRun } from "../../../src/daemon/storage/database.js";
import { countedSqliteStorage } from "./temp-database.js";

describe("a session's creation on SQLite", () => {
  it("commits the row with its preview and the first entries in 7 statements, BEGIN and COMMIT included", async () => {
    const { storage, db, folder: dir } = countedSqliteStorage();
    const preview = { text: "first", transcript_count: 1, truncated: false };
    const before = statementsRun(db) ?? Number.NaN;
    const created = await storage.createSession(
      { id: "s", workspace: dir, createdAt: 1_000 },
      [{ kind: "session_start", ts: 1_000, system_prompt: null, config: {}, history: [] }],
      preview,
    );
    // BEGIN, the row (RETURNING it), the head read, the entry, the head, the refusal forgotten, COMMIT.
    expect((statementsRun(db) ?? Number.NaN) - before).toBe(7);
    expect(created.row.preview).toEqual(preview);
    expect((await storage.getSession("s"))?.preview).toEqual(preview);
    expect(await storage.readLog("s")).toHaveLength(1);
  });
});
