/**
 * `npm run bench -- backup`: `skein backup` and `skein restore` of a large home (default 1 GB of
 * session logs, SKEIN_BENCH_BACKUP_MB to change it), each timed as the CLI process runs, with a
 * daemon running on the home; baseline: copying the database file (`cp`) in the same run, the
 * floor of any copy. A backup also re-hashes and checks every log in its copy, a restore once
 * more in the restored home.
 */
import { spawnSync } from "node:child_process";
import { rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadSigningKey } from "../src/daemon/process/signing-key.js";
import { openDaemonDatabase } from "../src/daemon/storage/database.js";
import { SqliteSessionStorage } from "../src/daemon/storage/sqlite-session-storage.js";
import { homePaths } from "../src/home/home.js";
import type { LogEntry } from "../src/log/entries.js";
import { toolCall, toolResult } from "../src/model/items.js";
import { DaemonHarness, skeinBin } from "../test/e2e/support/daemon-harness.js";
import { FakeProvider } from "../test/support/fake-provider/server.js";
import { now, profiles } from "./daemon-support.js";
import { figure, writeReport } from "./report.js";

const sessions = 20;
const entryBytes = 64 * 1024;

/** Tool calls and their large results (a file read back whole), `count` entries. */
function largeEntries(count: number, seed: number): LogEntry[] {
  const entries: LogEntry[] = [];
  for (let i = 0; entries.length < count; i++) {
    const ts = Date.now();
    const body = `${seed}-${i} `.padEnd(entryBytes, "lorem ipsum dolor sit amet consectetur ");
    const turn = `turn-${i}`;
    entries.push(
      {
        kind: "assistant_items",
        ts,
        items: [toolCall(`call_${i}`, "read_file", '{"path":"a.ts"}')],
        turn_id: turn,
      },
      { kind: "tool_results", ts, items: [toolResult(`call_${i}`, body)], turn_id: turn },
    );
  }
  return entries.slice(0, count);
}

async function grow(home: string, ids: readonly string[], megabytes: number): Promise<void> {
  const db = openDaemonDatabase(homePaths(home).database);
  const storage = new SqliteSessionStorage(db, { signer: (await loadSigningKey(home)).signer });
  try {
    // Half the entries are the small calls, half the large results.
    const perSession = 2 * Math.ceil((megabytes * 1_048_576) / entryBytes / ids.length);
    for (const [n, id] of ids.entries()) {
      const writer = storage.writerFrom(id, await storage.readLog(id));
      const more = largeEntries(perSession, n);
      for (let i = 0; i < more.length; i += 200) await writer.append(more.slice(i, i + 200), {});
    }
  } finally {
    await storage.close();
    db.close();
  }
}

function timed(command: string, args: readonly string[], env: NodeJS.ProcessEnv): number {
  const begin = now();
  const result = spawnSync(command, args, { env, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")}: ${result.stderr}`);
  return now() - begin;
}

export async function run(): Promise<void> {
  const megabytes = Number(process.env.SKEIN_BENCH_BACKUP_MB ?? 1024);
  const provider = await FakeProvider.start();
  const app = await DaemonHarness.start({ providers: profiles(provider), env: { SKEIN_LOG_LEVEL: "warn" } });
  try {
    const ids = await Promise.all(Array.from({ length: sessions }, () => app.createSession()));
    await app.shutdown();
    await grow(app.home, ids, megabytes);
    await app.boot();
    const size = statSync(app.dbPath).size;
    const env = { ...process.env, SKEIN_HOME: app.home, SKEIN_NO_AUTOSTART: "1" };
    const copy = join(app.root, "copy.sqlite");
    const cpMs = timed("cp", [app.dbPath, copy], env);
    rmSync(copy);
    const folder = join(app.root, "backup");
    const backupMs = timed(process.execPath, [skeinBin, "backup", folder], env);
    const restoredHome = join(app.root, "restored");
    const restoreMs = timed(process.execPath, [skeinBin, "restore", folder], {
      ...env,
      SKEIN_HOME: restoredHome,
    });
    const gb = size / 1_073_741_824;
    writeReport("backup", [
      figure(
        "backup_ms",
        backupMs,
        "ms",
        cpMs,
        `skein backup of a ${gb.toFixed(2)} GiB database (${sessions} sessions) while its daemon runs: copy + verify every log; baseline: cp of the file`,
      ),
      figure(
        "restore_ms",
        restoreMs,
        "ms",
        cpMs,
        "skein restore of that backup into a new home: copy + verify against the manifest; baseline: cp of the file",
      ),
      figure(
        "backup_bytes",
        statSync(join(folder, "skein.sqlite")).size,
        "bytes",
        size,
        "the backup's database copy; baseline: the live database file",
      ),
    ]);
  } finally {
    await app.close();
    await provider.close();
  }
}
