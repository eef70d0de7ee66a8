import { describe, expect, it } from "vitest";
import { SessionExistsError } from "../../../src/daemon/errors.js";
import { descendantUsageProgram } from "../../../src/daemon/storage/descendant-usage.js";
import { admitInput } from "../../../src/daemon/storage/input-admission.js";
import {
  deleteSessionRows,
  getSession,
  insertSession,
  listSessions,
  type SessionListFilter,
  sessionMatches,
  setPreview,
  tablesWithSessionColumn,
  touchActivity,
  updateUsage,
} from "../../../src/daemon/storage/sessions-table.js";
import { runSqlite } from "../../../src/daemon/storage/sqlite-runner.js";
import { getTurn, startTurn } from "../../../src/daemon/storage/turns-table.js";
import { addSession, tempDatabase } from "./temp-database.js";

describe("the sessions table", () => {
  it("stores a new session with zero usage, an empty preview and activity at creation", () => {
    const { db } = tempDatabase();
    const row = insertSession(db, {
      id: "s1",
      name: "first",
      workspace: "/w",
      providerProfile: "fixture",
      model: "m",
      systemPrompt: "be brief",
      createdAt: 1000,
    });
    expect(row).toEqual({
      id: "s1",
      name: "first",
      workspace: "/w",
      parentId: null,
      providerProfile: "fixture",
      model: "m",
      systemPrompt: "be brief",
      createdAt: 1000,
      activityAt: 1000,
      inputOrder: 0,
      usage: { prompt_tokens: 0, completion_tokens: 0, cached_prompt_tokens: 0, total_tokens: 0 },
      preview: { text: "", transcript_count: 0, truncated: false },
      creation: { kind: "new" },
      creationRequest: null,
      mcpServers: [],
      task: null,
      ownBudget: null,
    });
    expect(getSession(db, "s1")).toEqual(row);
    expect(getSession(db, "nope")).toBeNull();
  });

  it("records a task's child (parent, call, agent; created new) and sums its usage, recursively, into the parent's descendants per profile and model", () => {
    const { db } = tempDatabase();
    addSession(db, "p");
    const child = insertSession(db, {
      id: "c",
      workspace: "/w",
      createdAt: 1000,
      parentId: "p",
      task: { parentCallId: "call_1", agent: "alpha" },
    });
    expect(child).toMatchObject({
      parentId: "p",
      task: { parentCallId: "call_1", agent: "alpha" },
      creation: { kind: "new" },
    });
    insertSession(db, {
      id: "g",
      workspace: "/w",
      providerProfile: "cheap",
      model: "small",
      createdAt: 1000,
      parentId: "c",
      task: { parentCallId: "x", agent: "general" },
    });
    // A fork of the parent is no child: its usage stays its own.
    insertSession(db, {
      id: "f",
      workspace: "/w",
      createdAt: 1000,
      parentId: "p",
      fork: { checkpointId: "1", entryHash: "h" },
    });
    updateUsage(db, "c", { input_tokens: 10, output_tokens: 5 });
    updateUsage(db, "g", { input_tokens: 1, output_tokens: 2, total_tokens: 4 });
    updateUsage(db, "f", { input_tokens: 100, output_tokens: 100 });
    updateUsage(db, "p", { input_tokens: 1000, output_tokens: 1000 });
    const parts = runSqlite(db, descendantUsageProgram("p"));
    expect(parts).toHaveLength(2);
    expect(parts).toEqual(
      expect.arrayContaining([
        {
          providerProfile: "cheap",
          model: "small",
          usage: { prompt_tokens: 1, completion_tokens: 2, cached_prompt_tokens: 0, total_tokens: 4 },
        },
        {
          providerProfile: null,
          model: null,
          usage: { prompt_tokens: 10, completion_tokens: 5, cached_prompt_tokens: 0, total_tokens: 15 },
        },
      ]),
    );
    expect(runSqlite(db, descendantUsageProgram("g"))).toEqual([]);
  });

  it("keeps the creation request a session was made by, as JSON", () => {
    const { db } = tempDatabase();
    const creationRequest = { kind: "new" as const, workspace: "/w", name: "asked", mcp_servers: [] };
    insertSession(db, { id: "s2", workspace: "/w", createdAt: 1000, creationRequest });
    expect(JSON.parse(getSession(db, "s2")!.creationRequest!)).toEqual(creationRequest);
  });

  it("keeps the MCP servers a session selected, in order", () => {
    const { db } = tempDatabase();
    insertSession(db, { id: "s1", workspace: "/w", createdAt: 1, mcpServers: ["github", "fs"] });
    expect(getSession(db, "s1")?.mcpServers).toEqual(["github", "fs"]);
  });

  it("refuses a second session with the same id", () => {
    const { db } = tempDatabase();
    addSession(db, "s1");
    expect(() => addSession(db, "s1")).toThrow(SessionExistsError);
  });

  it("lists sessions newest activity first and never moves activity backwards", () => {
    const { db } = tempDatabase();
    addSession(db, "a", 100);
    addSession(db, "b", 200);
    addSession(db, "c", 300);
    expect(listSessions(db).map((s) => s.id)).toEqual(["c", "b", "a"]);
    expect(touchActivity(db, "a", 400)).toBe(true);
    expect(touchActivity(db, "c", 50)).toBe(true);
    expect(listSessions(db).map((s) => s.id)).toEqual(["a", "c", "b"]);
    expect(getSession(db, "c")?.activityAt).toBe(300);
    expect(touchActivity(db, "missing", 1)).toBe(false);
  });

  it("pages a listing by keyset: every session once, in listing order, ties on activity broken by id", () => {
    const { db } = tempDatabase();
    // Three sessions share an activity time, so a page boundary falls inside a tie.
    for (const [id, at] of [
      ["a", 100],
      ["b", 200],
      ["c", 200],
      ["d", 200],
      ["e", 300],
      ["f", 50],
    ] as const)
      addSession(db, id, at);
    insertSession(db, { id: "g", workspace: "/w", parentId: "a", createdAt: 250 });
    const whole = listSessions(db).map((row) => row.id);
    expect(whole).toEqual(["e", "g", "d", "c", "b", "a", "f"]);
    for (const filter of [{ kind: "all" }, { kind: "top" }] satisfies SessionListFilter[]) {
      for (const limit of [1, 2, 3, 7, 10]) {
        const seen: string[] = [];
        let after: { activityAt: number; id: string } | undefined;
        for (;;) {
          const page = listSessions(db, filter, after === undefined ? { limit } : { limit, after });
          expect(page.length).toBeLessThanOrEqual(limit);
          seen.push(...page.map((row) => row.id));
          const last = page.at(-1);
          if (page.length < limit || last === undefined) break;
          after = { activityAt: last.activityAt, id: last.id };
        }
        expect(seen).toEqual(listSessions(db, filter).map((row) => row.id));
      }
    }
    expect(
      listSessions(db, { kind: "all" }, { limit: 2, after: { activityAt: 200, id: "c" } }).map((r) => r.id),
    ).toEqual(["b", "a"]);
  });

  it("records how a fork was made and lists all sessions, the top-level ones or one session's forks", () => {
    const { db } = tempDatabase();
    addSession(db, "root", 100);
    insertSession(db, {
      id: "child",
      workspace: "/w",
      parentId: "root",
      createdAt: 300,
      fork: { checkpointId: "3-1", entryHash: "e".repeat(64) },
    });
    insertSession(db, { id: "grandchild", workspace: "/w", parentId: "child", createdAt: 200 });
    addSession(db, "other", 400);
    expect(getSession(db, "child")?.creation).toEqual({
      kind: "fork",
      source_session_id: "root",
      checkpoint_id: "3-1",
      entry_hash: "e".repeat(64),
    });
    const ids = (filter: SessionListFilter) => listSessions(db, filter).map((row) => row.id);
    expect(ids({ kind: "all" })).toEqual(["other", "child", "grandchild", "root"]);
    expect(listSessions(db).map((row) => row.id)).toEqual(ids({ kind: "all" }));
    expect(ids({ kind: "top" })).toEqual(["other", "root"]);
    expect(ids({ kind: "children", parentId: "root" })).toEqual(["child"]);
    expect(ids({ kind: "children", parentId: "child" })).toEqual(["grandchild"]);
    expect(ids({ kind: "children", parentId: "other" })).toEqual([]);
    for (const row of listSessions(db)) {
      for (const filter of [
        { kind: "all" },
        { kind: "top" },
        { kind: "children", parentId: "root" },
      ] satisfies SessionListFilter[]) {
        expect(sessionMatches(row, filter)).toBe(ids(filter).includes(row.id));
      }
    }
  });

  it("adds each usage report to the session's totals", () => {
    const { db } = tempDatabase();
    addSession(db, "s1");
    updateUsage(db, "s1", { input_tokens: 100, output_tokens: 20, cache_read_tokens: 80, total_tokens: 120 });
    updateUsage(db, "s1", { input_tokens: 10, output_tokens: 5 });
    expect(getSession(db, "s1")?.usage).toEqual({
      prompt_tokens: 110,
      completion_tokens: 25,
      cached_prompt_tokens: 80,
      total_tokens: 135,
    });
  });

  it("stores the preview text, its truncation and the transcript count", () => {
    const { db } = tempDatabase();
    addSession(db, "s1");
    setPreview(db, "s1", { text: "hello", transcript_count: 3, truncated: true });
    expect(getSession(db, "s1")?.preview).toEqual({ text: "hello", transcript_count: 3, truncated: true });
  });

  it("deletes every row of one session in every table with a session column, and nothing of another", () => {
    const { db } = tempDatabase();
    // A table this module has never heard of still takes part, as the log store's table does.
    db.exec("CREATE TABLE extra (session TEXT NOT NULL, value INTEGER)");
    for (const id of ["gone", "kept"]) {
      addSession(db, id);
      admitInput(db, { session: id, id: `${id}-i1`, kind: "message", intent: { text: id }, acceptedAt: 1 });
      startTurn(db, { id: `${id}-t1`, session: id, inputIds: [`${id}-i1`], startedAt: 2 });
      db.prepare("INSERT INTO extra (session, value) VALUES (?, 1), (?, 2)").run(id, id);
      db.prepare(
        "INSERT INTO session_leases (session, node_id, epoch, expires_at) VALUES (?, 'n', 1, 0)",
      ).run(id);
    }
    expect(tablesWithSessionColumn(db)).toEqual(["extra", "inputs", "session_leases", "turns"]);

    expect(deleteSessionRows(db, "gone")).toBe(6);

    for (const table of tablesWithSessionColumn(db)) {
      const sessions = db.prepare(`SELECT DISTINCT session FROM ${table}`).all();
      expect(sessions, table).toEqual([{ session: "kept" }]);
    }
    expect(getSession(db, "gone")).toBeNull();
    expect(getSession(db, "kept")).not.toBeNull();
    expect(getTurn(db, "kept-t1")).not.toBeNull();
    expect(deleteSessionRows(db, "gone")).toBe(0);
  });
});
