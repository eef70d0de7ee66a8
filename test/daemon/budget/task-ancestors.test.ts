/**
 * The task ancestors whose session budgets a session's requests must also fit, read from real
 * SQLite session rows: parent first, each with the own budget its row holds; a fork's source
 * is no ancestor (a fork pays for itself), and a parent chain written into a cycle ends.
 */
import { describe, expect, it } from "vitest";
import { taskAncestorBudgets } from "../../../src/daemon/budget/task-ancestors.js";
import { getSession, insertSession } from "../../../src/daemon/storage/sessions-table.js";
import { addSession, tempDatabase } from "../storage/temp-database.js";

describe("a session's task ancestors", () => {
  it("lists its parent and theirs with their own budgets, and stops at a session no task call made", async () => {
    const { db } = tempDatabase();
    addSession(db, "root");
    insertSession(db, {
      id: "fork",
      workspace: "/w",
      createdAt: 1,
      parentId: "root",
      fork: { checkpointId: "1", entryHash: "h" },
    });
    insertSession(db, {
      id: "p",
      workspace: "/w",
      createdAt: 1,
      parentId: "fork",
      task: { parentCallId: "c1", agent: "a" },
    });
    insertSession(db, {
      id: "c",
      workspace: "/w",
      createdAt: 1,
      parentId: "p",
      task: { parentCallId: "c2", agent: "a" },
    });
    db.prepare("UPDATE sessions SET own_budget = ? WHERE id = ?").run(
      JSON.stringify({ maxTokens: 9, period: "total" }),
      "fork",
    );
    db.prepare("UPDATE sessions SET own_budget = ? WHERE id = ?").run(
      JSON.stringify({ maxCostUsd: 2, period: "day" }),
      "root",
    );
    const storage = { getSession: async (id: string) => getSession(db, id) };

    expect(await taskAncestorBudgets(storage, getSession(db, "c")!)).toEqual([
      { sessionId: "p", own: null },
      { sessionId: "fork", own: { maxTokens: 9, period: "total" } },
    ]);
    // The fork's own source is not its ancestor: the walk ends at the fork.
    expect(await taskAncestorBudgets(storage, getSession(db, "fork")!)).toEqual([]);
    expect(await taskAncestorBudgets(storage, getSession(db, "root")!)).toEqual([]);
  });

  it("ends a parent chain that a database writer made into a cycle", async () => {
    const { db } = tempDatabase();
    addSession(db, "x");
    insertSession(db, {
      id: "a",
      workspace: "/w",
      createdAt: 1,
      parentId: "x",
      task: { parentCallId: "c", agent: "g" },
    });
    insertSession(db, {
      id: "b",
      workspace: "/w",
      createdAt: 1,
      parentId: "a",
      task: { parentCallId: "c", agent: "g" },
    });
    db.prepare("UPDATE sessions SET parent_id = 'b', parent_call_id = 'c', agent = 'g' WHERE id = 'a'").run();
    const storage = { getSession: async (id: string) => getSession(db, id) };
    expect((await taskAncestorBudgets(storage, getSession(db, "b")!)).length).toBe(32);
  });
});
