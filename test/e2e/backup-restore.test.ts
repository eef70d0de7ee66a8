/**
 * `skein backup` while the daemon runs and writes (20 sessions taking turns), and `skein restore`
 * into a fresh home: every restored log verifies (through a daemon the CLI starts on the restored
 * home) and equals the source's log up to the moment of the backup. Refusals change nothing.
 */
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { useCliDaemon } from "../cli/support/cli-daemon.js";
import { deliver, text } from "../support/fake-provider/reply.js";

interface Manifest {
  heads: Array<{ session: string; position: number; hash: string; key_id: string | null }>;
  home_files: string[];
}

/** Each session's (position, hash) pairs in the SQLite database at `path`. */
function chains(path: string): Map<string, string[]> {
  const db = new Database(path, { readonly: true });
  try {
    const rows = db
      .prepare("SELECT session, position, hash FROM transcript ORDER BY session, position")
      .all() as Array<{
      session: string;
      position: number;
      hash: string;
    }>;
    const byId = new Map<string, string[]>();
    for (const row of rows)
      byId.set(row.session, [...(byId.get(row.session) ?? []), `${row.position}:${row.hash}`]);
    return byId;
  } finally {
    db.close();
  }
}

describe("backing up and restoring a home", () => {
  const shared = useCliDaemon(() => deliver(text(["a ", "streamed ", "answer"]), { delayMs: 5 }));

  it("copies a home while 20 sessions take turns, and a restore verifies and equals the source up to the backup", async () => {
    const sessions = await Promise.all(Array.from({ length: 20 }, () => shared.daemon.createSession()));
    let writing = true;
    const traffic = Promise.all(
      sessions.map(async (session, i) => {
        for (let turn = 0; writing; turn++) await shared.daemon.turn(session, `session ${i} turn ${turn}`);
      }),
    );
    await Promise.all(sessions.map((session) => shared.daemon.turn(session, "first")));
    expect((await shared.cli.run(["auth", "set", "stored"], { input: "sk-backed-up" })).code).toBe(0);
    const folder = join(shared.daemon.root, "backup-1");
    const backup = await shared.cli.run(["backup", folder], { timeoutMs: 60_000 });
    writing = false;
    await traffic;
    expect(backup.stderr).toBe("");
    expect(backup.code).toBe(0);
    expect(backup.stdout).toMatch(
      /^backed up 20 sessions, \d+ log entries, a [\d.]+ MB database to .* in \d+ ms; every log verified\n$/,
    );
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    for (const name of readdirSync(folder))
      expect({ name, mode: statSync(join(folder, name)).mode & 0o777 }).toEqual({ name, mode: 0o600 });
    const manifest = JSON.parse(
      await import("node:fs").then((fs) => fs.readFileSync(join(folder, "manifest.json"), "utf8")),
    ) as Manifest;
    expect(manifest.home_files).toEqual([
      "config.json",
      "head-signing-key.pem",
      "head-signing.json",
      "secrets.json",
    ]);
    expect(manifest.heads).toHaveLength(20);

    const restoredHome = join(shared.daemon.root, "restored-home");
    const restore = await shared.cli.run(["restore", folder], {
      env: { SKEIN_HOME: restoredHome },
      timeoutMs: 60_000,
    });
    expect(restore.stderr).toBe("");
    expect(restore.code).toBe(0);
    expect(restore.stdout).toMatch(
      /^restored 20 sessions, .* every log verified against the backup's heads\n$/,
    );
    expect(statSync(restoredHome).mode & 0o777).toBe(0o700);
    // The stored API keys come back with the home, private as they were.
    expect(statSync(join(restoredHome, "secrets.json")).mode & 0o777).toBe(0o600);

    // Every restored log is the source's log cut at the backup's head (the source went on writing).
    const source = chains(shared.daemon.dbPath);
    const restored = chains(join(restoredHome, "skein.sqlite"));
    let behind = 0;
    for (const head of manifest.heads) {
      const chain = restored.get(head.session)!;
      expect(chain.at(-1)).toBe(`${head.position}:${head.hash}`);
      expect(source.get(head.session)!.slice(0, chain.length)).toEqual(chain);
      if (source.get(head.session)!.length > chain.length) behind++;
    }
    expect(behind).toBeGreaterThan(0);

    // A daemon on the restored home (started by the CLI) verifies every log with the restored key.
    const onRestored = { SKEIN_HOME: restoredHome, SKEIN_NO_AUTOSTART: "" };
    const verify = await shared.cli.run(["verify"], { env: onRestored, timeoutMs: 60_000 });
    expect(verify.code).toBe(0);
    // It also went on with what the backup caught in flight (queued inputs, cut turns), as after a crash.
    for (const head of manifest.heads)
      expect(verify.stdout).toMatch(
        new RegExp(`^ok  ${head.session}  \\d+ entries  head \\d+ \\w+  signed by ${head.key_id}: `, "m"),
      );
    expect((await shared.cli.run(["daemon", "stop"], { env: onRestored, timeoutMs: 30_000 })).code).toBe(0);
  }, 180_000);

  it("refuses a folder that is not empty, a home that is not empty and a backup that does not verify, and leaves each as it was", async () => {
    const busy = join(shared.daemon.root, "busy");
    mkdirSync(busy);
    writeFileSync(join(busy, "keep.txt"), "mine");
    const refused = await shared.cli.run(["backup", busy]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`skein backup: ${busy} is not empty`);
    expect(readdirSync(busy)).toEqual(["keep.txt"]);

    const folder = join(shared.daemon.root, "backup-2");
    expect((await shared.cli.run(["backup", folder], { timeoutMs: 60_000 })).code).toBe(0);
    const intoBusy = await shared.cli.run(["restore", folder], { env: { SKEIN_HOME: busy } });
    expect(intoBusy.code).toBe(1);
    expect(intoBusy.stderr).toContain(`skein restore: ${busy} is not empty`);
    expect(readdirSync(busy)).toEqual(["keep.txt"]);

    // An entry rewritten in the backup: the restore finds it and leaves no home behind.
    const db = new Database(join(folder, "skein.sqlite"));
    db.prepare(
      "UPDATE transcript SET entry = replace(entry, 'first', 'FIRST') WHERE entry LIKE '%first%'",
    ).run();
    db.close();
    const tamperedHome = join(shared.daemon.root, "tampered-home");
    const tampered = await shared.cli.run(["restore", folder], {
      env: { SKEIN_HOME: tamperedHome },
      timeoutMs: 60_000,
    });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^skein restore: session \S+ does not verify at position \d+/);
    expect(() => statSync(tamperedHome)).toThrow();

    const postgres = await shared.cli.run(["backup", join(shared.daemon.root, "backup-3")], {
      env: { SKEIN_DB: "postgres://127.0.0.1:5432/test" },
    });
    expect(postgres.code).toBe(1);
    expect(postgres.stderr).toContain("back it up with pg_dump");
  }, 120_000);
});
