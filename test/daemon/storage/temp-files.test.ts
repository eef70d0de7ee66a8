/**
 * Where SQLite may write besides the database's own files. By default it spills a savepoint's
 * undo pages past 64 KiB to a file it makes and unlinks at once in SQLITE_TMPDIR (else /var/tmp,
 * /tmp): a commit would then depend on a directory outside the daemon's home. The database is
 * opened in a child process (SQLite reads SQLITE_TMPDIR once, when it starts) and the directory
 * is watched for any file made there.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, watch } from "node:fs";
import { join } from "node:path";
import { buildSync } from "esbuild";
import { describe, expect, it } from "vitest";
import { tempFolder } from "./temp-database.js";

const projectRoot = join(import.meta.dirname, "../../..");

/** The files made in SQLite's temporary directory while `script` runs with the module `entry` loaded as `open`. */
async function filesMadeWhile(entry: string, script: string): Promise<string[]> {
  const folder = tempFolder();
  const temporary = join(folder, "tmp");
  mkdirSync(temporary);
  const bundle = join(folder, "open.cjs");
  buildSync({
    entryPoints: [join(projectRoot, entry)],
    bundle: true,
    platform: "node",
    format: "cjs",
    outfile: bundle,
    external: ["better-sqlite3"],
    logLevel: "silent",
  });
  const made: string[] = [];
  const watcher = watch(temporary, (_event, name) => made.push(String(name)));
  try {
    const child = spawnSync(
      process.execPath,
      [
        "-e",
        `const open = require(${JSON.stringify(bundle)});\nconst path = ${JSON.stringify(join(folder, "db.sqlite"))};\n${script}`,
      ],
      {
        encoding: "utf8",
        env: { ...process.env, SQLITE_TMPDIR: temporary, NODE_PATH: join(projectRoot, "node_modules") },
      },
    );
    expect(child.stderr).toBe("");
    expect(child.stdout.trim()).toBe("done");
    // Events of the child's last moments arrive after it exits.
    await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    watcher.close();
  }
  return made;
}

// Rows over 50 pages, then every one of them changed inside a savepoint: ~200 KiB of undo pages.
const largeSavepoint = `
db.exec("CREATE TABLE t (x TEXT)");
const insert = db.prepare("INSERT INTO t VALUES (?)");
for (let i = 0; i < 200; i++) insert.run("x".repeat(1000));
db.exec("BEGIN IMMEDIATE; SAVEPOINT s; UPDATE t SET x = x || 'y'; RELEASE s; COMMIT");
db.close();
console.log("done");`;

describe("SQLite's temporary files", () => {
  it("are never made for the daemon's database, even for a savepoint that changes many pages", async () => {
    const made = await filesMadeWhile(
      "src/daemon/storage/database.ts",
      `const db = open.openDaemonDatabase(path);${largeSavepoint}`,
    );
    expect(made).toEqual([]);
  });

  it("are never made for a log store's own database file either", async () => {
    const made = await filesMadeWhile(
      "src/log/sqlite-store.ts",
      `const store = new open.SqliteStore(path);\nconst db = store.db;${largeSavepoint}`,
    );
    expect(made).toEqual([]);
  });
});
