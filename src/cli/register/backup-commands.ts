/**
 * `skein backup PATH` and `skein restore PATH`.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";

/** Register `backup` and `restore` on the program. */
export function registerBackupCommands(program: Command, wiring: CommandWiring): void {
  program
    .command("backup")
    .description("copy the home (database, signing key, config) into a new folder, while the daemon runs")
    .argument("<path>", "a new or empty folder")
    .addHelpText(
      "after",
      "\nThe SQLite database is copied consistently with SQLite's online backup API, and every session's log is\nverified in the copy. On PostgreSQL use pg_dump (docs/operations.md). The folder holds the home's signing key:\nkeep it as private as the home.\n\nExample:\n  $ skein backup /backups/skein-$(date +%F)",
    )
    .action(lazyAction(wiring, () => import("../commands/backup.js"), "runBackup", "backup"));
  program
    .command("restore")
    .description("restore a backup into an empty or new home (SKEIN_HOME or --home)")
    .argument("<path>", "a folder skein backup wrote")
    .addHelpText(
      "after",
      "\nEvery session's log is verified against the heads the backup recorded; on any difference nothing is left\nin the home.\n\nExample:\n  $ SKEIN_HOME=~/.skein-restored skein restore /backups/skein-2026-12-06",
    )
    .action(lazyAction(wiring, () => import("../commands/backup.js"), "runBackup", "restore"));
}
