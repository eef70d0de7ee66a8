import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import {
  currentSchemaVersion,
  DatabaseVersionError,
  migrations,
  openDaemonDatabase,
  schemaVersion,
  statementsRun,
  walFramesWritten,
} from "../../../src/daemon/storage/database.js";
import { getSession } from "../../../src/daemon/storage/sessions-table.js";
import { addSession, tempDatabase, tempFolder } from "./temp-database.js";

describe("the daemon database", () => {
  it("opens with WAL, synchronous FULL, foreign keys on and a 5 s busy timeout", () => {
    const { db } = tempDatabase();
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.pragma("synchronous", { simple: true })).toBe(2);
    expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
  });

  it("counts the statements a connection runs when asked to, and only then", () => {
    const folder = tempFolder();
    const counted = openDaemonDatabase(join(folder, "counted.sqlite"), { countStatements: true });
    const plain = openDaemonDatabase(join(folder, "plain.sqlite"));
    try {
      addSession(counted, "s1");
      const before = statementsRun(counted) ?? Number.NaN;
      getSession(counted, "s1");
      // A read outside a transaction is one statement.
      expect(statementsRun(counted)).toBe(before + 1);
      expect(statementsRun(plain)).toBeNull();
    } finally {
      counted.close();
      plain.close();
    }
  });

  it("counts the pages a counting connection's commits write to the log, across a restart of the log", () => {
    const folder = tempFolder();
    const path = join(folder, "counted.sqlite");
    const counted = openDaemonDatabase(path, { countStatements: true });
    const plain = openDaemonDatabase(join(folder, "plain.sqlite"));
    // The log's salts (its header's bytes 16-23): new ones each time it starts over.
    const salts = () => readFileSync(`${path}-wal`).subarray(16, 24).toString("hex");
    try {
      counted.exec("CREATE TABLE t (a INTEGER)");
      counted.exec("INSERT INTO t VALUES (1)");
      const before = walFramesWritten(counted) ?? Number.NaN;
      // A row on the table's one page: one page of log.
      counted.prepare("INSERT INTO t VALUES (?)").run(2);
      expect(walFramesWritten(counted)).toBe(before + 1);
      // Copied back whole, the log starts over at its first frame with the next commit.
      const [checkpoint] = counted.pragma("wal_checkpoint(PASSIVE)") as Array<{
        log: number;
        checkpointed: number;
      }>;
      expect(checkpoint!.checkpointed).toBe(checkpoint!.log);
      const first = salts();
      counted.prepare("INSERT INTO t VALUES (?)").run(3);
      expect(salts()).not.toBe(first);
      counted.prepare("INSERT INTO t VALUES (?)").run(4);
      expect(walFramesWritten(counted)).toBe(before + 3);
      expect(walFramesWritten(plain)).toBeNull();
    } finally {
      counted.close();
      plain.close();
    }
  });

  it("creates the file readable and writable by its owner only", () => {
    const { db, path } = tempDatabase();
    addSession(db, "s1");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
  });

  it("tightens the mode of an existing file to 0600", () => {
    const path = join(tempFolder(), "loose.sqlite");
    new Database(path).close();
    const db = openDaemonDatabase(path);
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("creates the sessions, inputs, turns, rejected_creations, schedules, api_tokens, notification_outbox and budget_usage tables and records the schema version", () => {
    const { db } = tempDatabase();
    const tables = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
    )
      .map((row) => row.name)
      .sort();
    expect(tables).toEqual([
      "api_tokens",
      "budget_usage",
      "cluster_config",
      "inputs",
      "nodes",
      "notification_outbox",
      "rejected_creations",
      "schedules",
      "schema_version",
      "session_leases",
      "sessions",
      "turns",
    ]);
    expect(currentSchemaVersion(db)).toBe(schemaVersion);
  });

  it("applies migrations once however often the file is opened, keeping the data", () => {
    const { db, path } = tempDatabase();
    addSession(db, "kept");
    db.close();
    for (let i = 0; i < 3; i++) {
      const again = openDaemonDatabase(path);
      const versions = again.prepare("SELECT version FROM schema_version ORDER BY version").all();
      expect(versions).toEqual(migrations.map(({ version }) => ({ version })));
      expect(getSession(again, "kept")?.workspace).toBe("/tmp/work");
      again.close();
    }
  });

  it("refuses a file written by a newer schema and leaves it untouched", () => {
    const { db, path } = tempDatabase();
    db.prepare("INSERT INTO schema_version (version, applied_at) VALUES (?, 0)").run(schemaVersion + 1);
    db.close();
    expect(() => openDaemonDatabase(path)).toThrow(DatabaseVersionError);
    const raw = new Database(path);
    expect(raw.prepare("SELECT max(version) AS v FROM schema_version").get()).toEqual({
      v: schemaVersion + 1,
    });
    raw.close();
  });

  it("brings a version 1 file up to date: its sessions keep their data, forks among them say so", () => {
    const path = join(tempFolder(), "v1.sqlite");
    const old = new Database(path);
    old.exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at INTEGER NOT NULL)");
    for (const statement of migrations[0]!.statements) old.exec(statement);
    old.prepare("INSERT INTO schema_version VALUES (1, 0)").run();
    const insert = old.prepare(
      "INSERT INTO sessions (id, workspace, parent_id, created_at, activity_at) VALUES (?, '/w', ?, 5, 5)",
    );
    insert.run("plain", null);
    insert.run("fork", "plain");
    old.close();
    const db = openDaemonDatabase(path);
    expect(currentSchemaVersion(db)).toBe(schemaVersion);
    expect(getSession(db, "plain")?.creation).toEqual({ kind: "new" });
    expect(getSession(db, "fork")?.creation).toEqual({
      kind: "fork",
      source_session_id: "plain",
      checkpoint_id: null,
      entry_hash: null,
    });
    // Sessions from before MCP servers could be selected use none.
    expect(getSession(db, "plain")?.mcpServers).toEqual([]);
    db.close();
  });
});
