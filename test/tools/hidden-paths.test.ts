/**
 * The daemon's private data seen from the agent's tools: a workspace that contains the daemon's
 * home (token, API keys, live database), a database outside the home but inside the workspace,
 * and workspaces that lie inside the home. Every tool is built the way the daemon builds it.
 */
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { closeSync, openSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { databaseFiles } from "../../src/daemon/storage/database.js";
import type { ToolDefinition, ToolOutput } from "../../src/model/tools.js";
import {
  type BuiltinToolsOptions,
  builtinTools,
  WorkspaceConfigurationError,
  workspaceProblem,
} from "../../src/tools/builtin-tools.js";
import { resolveHiddenPaths } from "../../src/tools/hidden-paths.js";
import { HIDDEN_MARK } from "../../src/tools/list-files.js";
import { openRegularFile } from "../../src/tools/workspace-file.js";
import { WorkspacePathError } from "../../src/tools/workspace-path.js";
import { callTool, makeTempDirectory, outputText, requireBwrap, type TempDirectory } from "./tool-harness.js";

const token = `token-${randomBytes(8).toString("hex")}`;
const apiKey = `key-${randomBytes(8).toString("hex")}`;
const betterSqlite = createRequire(import.meta.url).resolve("better-sqlite3");

/** The tool set the daemon builds for `workspace`, keyed by name. */
function toolsFor(workspace: string, hiddenPaths: readonly string[]): Record<string, ToolDefinition> {
  const options: BuiltinToolsOptions = { hiddenPaths, env: {} };
  const tools: Record<string, ToolDefinition> = {};
  for (const definition of builtinTools(workspace, options)) tools[definition().meta.name] = definition;
  return tools;
}

/** Calls a tool and returns its output, or the thrown error (a refusal is an error, not a crash). */
async function attempt(tool: ToolDefinition | undefined, input: unknown): Promise<ToolOutput | Error> {
  if (tool === undefined) throw new Error("tool missing");
  return callTool(tool, input).catch((error: unknown) => {
    if (error instanceof Error) return error;
    throw error;
  });
}

function expectHiddenRefusal(result: ToolOutput | Error, requested: string): void {
  expect(result, requested).toBeInstanceOf(WorkspacePathError);
  expect(result).toMatchObject({ problem: "hidden_path", kind: "invalid_argument" });
  expect((result as Error).message).toContain("hidden from the agent");
}

/**
 * The home's files, with the content of each that is not a database file, to compare before and
 * after. Database files are not read: reading them here would drop this process's SQLite locks.
 */
async function contents(directory: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for (const name of (await readdir(directory)).sort()) {
    if (name.startsWith("skein.sqlite")) continue;
    found[name] = await readFile(path.join(directory, name), "utf8");
  }
  return found;
}

/**
 * Whether another process can take SQLite's write lock on `file` right now. While this process
 * holds a write transaction it cannot; if this process opened and closed one of the database's
 * files, its POSIX locks are gone and it can.
 */
function anotherProcessCanWrite(file: string): boolean {
  const script =
    `const Database = require(${JSON.stringify(betterSqlite)});` +
    `const db = new Database(${JSON.stringify(file)}, { timeout: 0 });` +
    `try { db.exec("BEGIN IMMEDIATE"); db.exec("ROLLBACK"); console.log("acquired"); }` +
    `catch (error) { console.log(error.code); }`;
  const result = spawnSync(process.execPath, ["-e", script], { encoding: "utf8", timeout: 20_000 });
  const answer = result.stdout.trim();
  if (answer !== "acquired" && answer !== "SQLITE_BUSY") {
    throw new Error(`lock probe failed: ${JSON.stringify({ ...result, output: undefined })}`);
  }
  return answer === "acquired";
}

/** A daemon-like live database: WAL mode, with a write transaction held open by this process. */
function liveDatabase(file: string): Database.Database {
  const db = new Database(file);
  db.pragma("journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS sessions (id TEXT)");
  db.exec("INSERT INTO sessions VALUES ('s1')");
  return db;
}

beforeAll(() => {
  requireBwrap();
});

describe("a workspace that contains the daemon's home", () => {
  let workspace: TempDirectory;
  let home: string;
  let dbFile: string;
  let db: Database.Database;
  let tools: Record<string, ToolDefinition>;
  let before: Record<string, string>;

  beforeEach(async () => {
    workspace = await makeTempDirectory();
    home = path.join(workspace.root, ".skein");
    await mkdir(home, { mode: 0o700 });
    await writeFile(path.join(home, "daemon.json"), JSON.stringify({ port: 1, token }));
    await writeFile(
      path.join(home, "config.json"),
      JSON.stringify({ providers: { p: { api_key: apiKey } } }),
    );
    dbFile = path.join(home, "skein.sqlite");
    db = liveDatabase(dbFile);
    await writeFile(path.join(workspace.root, "notes.txt"), "visible\n");
    tools = toolsFor(workspace.root, [home, ...databaseFiles(dbFile)]);
    before = await contents(home);
  });

  afterEach(async () => {
    db.close();
    await workspace.remove();
  });

  const secretPaths = [
    ".skein",
    ".skein/daemon.json",
    ".skein/config.json",
    ".skein/skein.sqlite",
    ".skein/skein.sqlite-wal",
    ".skein/skein.sqlite-shm",
    "./.skein/../.skein/daemon.json",
  ];

  it("read_file refuses the home and everything in it, even through a symlink the shell made", async () => {
    for (const requested of [...secretPaths, "token-link", "home-link/config.json"]) {
      if (requested === "token-link") {
        await callTool(tools.run_command!, { command: "ln -s .skein/daemon.json token-link" });
      }
      if (requested === "home-link/config.json") {
        await callTool(tools.run_command!, { command: "ln -s .skein home-link" });
      }
      expectHiddenRefusal(await attempt(tools.read_file, { path: requested }), requested);
    }
    expect(await attempt(tools.read_file, { path: "notes.txt" })).toBe("visible");
  });

  it("write_file and edit_file change nothing in the home and create nothing there", async () => {
    for (const requested of [
      ".skein/config.json",
      ".skein/daemon.json",
      ".skein/new.txt",
      ".skein/skein.sqlite-journal",
    ]) {
      expectHiddenRefusal(await attempt(tools.write_file, { path: requested, content: "{}" }), requested);
    }
    for (const requested of [".skein/config.json", "home-alias/config.json"]) {
      if (requested.startsWith("home-alias")) await symlink(home, path.join(workspace.root, "home-alias"));
      expectHiddenRefusal(
        await attempt(tools.edit_file, { path: requested, old_text: apiKey, new_text: "stolen" }),
        requested,
      );
    }
    db.close();
    expect(await contents(home)).toEqual(before);
    expect(await attempt(tools.write_file, { path: "out.txt", content: "ok" })).toMatch(/^created out.txt/);
  });

  it("list_files marks the home hidden and never shows or enters it", async () => {
    const listing = outputText((await attempt(tools.list_files, { recursive: true })) as ToolOutput);
    expect(listing.split("\n")).toEqual([`.skein/ ${HIDDEN_MARK}`, "notes.txt"]);
    expectHiddenRefusal(await attempt(tools.list_files, { path: ".skein" }), ".skein");
    expectHiddenRefusal(await attempt(tools.list_files, { path: ".skein/sub" }), ".skein/sub");
  });

  it("run_command sees an empty, read-only home and cannot move it aside", async () => {
    const run = async (command: string) =>
      outputText((await attempt(tools.run_command, { command })) as ToolOutput);
    expect(await run("cat .skein/daemon.json .skein/config.json; echo status=$?")).toMatch(
      /No such file.*No such file.*status=1/s,
    );
    expect(await run("ls -A .skein | wc -l")).toBe("exit code: 0\n0\n");
    expect(await run("echo stolen > .skein/config.json")).toMatch(/Read-only file system/);
    expect(await run("mkdir .skein/x")).toMatch(/Read-only file system/);
    expect(await run("mv .skein moved")).toMatch(/Device or resource busy/);
    expect(await run("grep -r api_key . ; cat */*.json; echo done")).not.toMatch(
      new RegExp(`${token}|${apiKey}`),
    );
    expect(await run("cat notes.txt | tr a-z A-Z")).toBe("exit code: 0\nVISIBLE\n");
    db.close();
    expect(await contents(home)).toEqual(before);
    await expect(stat(path.join(workspace.root, "moved"))).rejects.toThrow();
  });

  it("no tool opens the live database: this process keeps its SQLite locks", async () => {
    db.exec("BEGIN IMMEDIATE");
    db.exec("INSERT INTO sessions VALUES ('s2')");
    expect(anotherProcessCanWrite(dbFile)).toBe(false);
    for (const requested of [".skein/skein.sqlite", ".skein/skein.sqlite-shm", ".skein/skein.sqlite-wal"]) {
      expectHiddenRefusal(await attempt(tools.read_file, { path: requested }), requested);
      expectHiddenRefusal(
        await attempt(tools.edit_file, { path: requested, old_text: "a", new_text: "b" }),
        requested,
      );
      expectHiddenRefusal(await attempt(tools.write_file, { path: requested, content: "" }), requested);
    }
    await callTool(tools.run_command!, { command: "ln -s .skein/skein.sqlite-shm shm-link" });
    expectHiddenRefusal(await attempt(tools.read_file, { path: "shm-link" }), "shm-link");
    await attempt(tools.list_files, { recursive: true });
    // A directory that passed the check but became a symlink into the home before the open.
    await symlink(home, path.join(workspace.root, "swapped"));
    await expect(
      openRegularFile(
        workspace.root,
        path.join(workspace.root, "swapped", "skein.sqlite-shm"),
        "swapped/skein.sqlite-shm",
      ),
    ).rejects.toMatchObject({ problem: "symlink_escape" });
    expect(anotherProcessCanWrite(dbFile)).toBe(false);
    // What the refusals prevent: one open and close of the shared-memory file frees the lock.
    closeSync(openSync(`${dbFile}-shm`, "r"));
    expect(anotherProcessCanWrite(dbFile)).toBe(true);
    db.exec("ROLLBACK");
  });
});

describe("a database outside the home, inside the workspace", () => {
  let workspace: TempDirectory;
  let home: string;
  let dbFile: string;
  let db: Database.Database;
  let tools: Record<string, ToolDefinition>;

  beforeEach(async () => {
    workspace = await makeTempDirectory();
    // Outside /tmp, so only the hiding (not the private /tmp) keeps the sandbox from it.
    home = await mkdtemp(path.join("/var/tmp", "skein-home-"));
    await writeFile(path.join(home, "daemon.json"), JSON.stringify({ token }));
    await mkdir(path.join(workspace.root, "data", "db"), { recursive: true });
    dbFile = path.join(workspace.root, "data", "db", "skein.sqlite");
    db = liveDatabase(dbFile);
    tools = toolsFor(workspace.root, [home, ...databaseFiles(dbFile)]);
  });

  afterEach(async () => {
    db.close();
    await workspace.remove();
    await rm(home, { recursive: true, force: true });
  });

  it("the file tools refuse the database and its companions, existing or not", async () => {
    for (const requested of [
      "data/db/skein.sqlite",
      "data/db/skein.sqlite-wal",
      "data/db/skein.sqlite-journal",
    ]) {
      expectHiddenRefusal(await attempt(tools.read_file, { path: requested }), requested);
      expectHiddenRefusal(await attempt(tools.write_file, { path: requested, content: "x" }), requested);
    }
    const listing = outputText((await attempt(tools.list_files, { path: "data/db" })) as ToolOutput);
    expect(listing).toContain(`data/db/skein.sqlite ${HIDDEN_MARK}`);
    expect(listing).toContain(`data/db/skein.sqlite-wal ${HIDDEN_MARK}`);
    expect(await attempt(tools.write_file, { path: "data/db/notes.txt", content: "ok" })).toMatch(/^created/);
  });

  it("run_command can neither read the database, plant a journal beside it, nor move it", async () => {
    const run = async (command: string) =>
      outputText((await attempt(tools.run_command, { command })) as ToolOutput);
    const original = await readFile(dbFile);
    expect(await run("cat data/db/skein.sqlite > copy; wc -c < copy")).toMatch(/Permission denied.*\n0\n$/s);
    expect(await run("echo evil > data/db/skein.sqlite-journal")).toMatch(
      /Read-only file system|Permission denied/,
    );
    expect(await run("rm -f data/db/skein.sqlite-wal")).toMatch(/Device or resource busy/);
    expect(await run("mv data/db data/elsewhere")).toMatch(/Device or resource busy/);
    expect(await run("mv data moved")).toMatch(/Device or resource busy/);
    expect(await run(`cat ${home}/daemon.json`)).toMatch(/No such file/);
    expect(await readFile(dbFile)).toEqual(original);
    // A journal placeholder may be left behind, but always empty: SQLite ignores an empty journal.
    const journal = await stat(`${dbFile}-journal`).catch(() => undefined);
    expect(journal?.size ?? 0).toBe(0);
    expect(await run("echo fine > data/free.txt && cat data/free.txt")).toBe("exit code: 0\nfine\n");
  });
});

describe("a workspace inside the daemon's home", () => {
  let base: TempDirectory;
  let home: string;

  beforeAll(async () => {
    base = await makeTempDirectory();
    home = path.join(base.root, "home");
    await mkdir(path.join(home, "projects", "app"), { recursive: true });
    await symlink(path.join(home, "projects"), path.join(base.root, "projects-alias"));
  });

  afterAll(async () => {
    await base.remove();
  });

  it("is refused when it is the home, lies inside it, or reaches it through a symlink", () => {
    const hiddenPaths = [home, ...databaseFiles(path.join(home, "skein.sqlite"))];
    for (const workspace of [
      home,
      path.join(home, "projects", "app"),
      path.join(base.root, "projects-alias"),
    ]) {
      expect(() => builtinTools(workspace, { hiddenPaths, shell: "off" }), workspace).toThrow(
        WorkspaceConfigurationError,
      );
      expect(workspaceProblem(workspace, hiddenPaths)).toMatch(/lies inside .* hidden from the agent/);
    }
  });

  it("is allowed when it only contains the home or sits beside it", () => {
    const hiddenPaths = [home];
    expect(workspaceProblem(base.root, hiddenPaths)).toBeNull();
    expect(workspaceProblem(`${home}-sibling`, hiddenPaths)).toBeNull();
    // Every built-in tool but run_command (the shell is off).
    expect(builtinTools(base.root, { hiddenPaths, shell: "off" })).toHaveLength(9);
  });

  it("keeps the hidden set as real paths, whatever spelling the daemon gives", () => {
    expect(resolveHiddenPaths([path.join(base.root, "projects-alias", "app")])).toEqual([
      path.join(home, "projects", "app"),
    ]);
    expect(() => resolveHiddenPaths(["relative/home"])).toThrow(/absolute/);
  });
});
