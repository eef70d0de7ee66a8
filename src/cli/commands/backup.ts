/**
 * `skein backup PATH` and `skein restore PATH`: the home's database and files copied while the
 * daemon runs, and put back into an empty home; each says what it copied and that every
 * session's log verified.
 *
 * Boundary rule: printing and exit codes; the work is the daemon's process layer
 * (home-backup.ts, loaded through load-daemon.ts).
 */
import { resolve } from "node:path";
import type { CliContext } from "../cli-context.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { loadDaemon } from "../load-daemon.js";
import { writeLine } from "../render/terminal.js";

/** Which way the copy goes. */
export type BackupDirection = "backup" | "restore";

/** Run a backup or a restore with the home of `context` (SKEIN_DB as the daemon reads it). */
export async function runBackup(
  context: CliContext,
  direction: BackupDirection,
  path: string,
): Promise<ExitCode> {
  const env = { ...context.env, SKEIN_HOME: context.home };
  const folder = resolve(context.cwd, path);
  const module = await loadDaemon();
  try {
    const done =
      direction === "backup" ? await module.backupHome(env, folder) : await module.restoreHome(env, folder);
    const out = context.terminal.out;
    const size = `${(done.databaseBytes / 1_048_576).toFixed(1)} MB`;
    const what = `${done.sessions} session${done.sessions === 1 ? "" : "s"}, ${done.entries} log entries, a ${size} database`;
    writeLine(
      out,
      direction === "backup"
        ? `backed up ${what} to ${done.folder} in ${done.elapsedMs} ms; every log verified`
        : `restored ${what} into ${done.home} in ${done.elapsedMs} ms; every log verified against the backup's heads`,
    );
    return exitCodes.ok;
  } catch (error) {
    writeLine(context.terminal.err, `skein ${direction}: ${(error as Error).message}`);
    return exitCodes.error;
  }
}
