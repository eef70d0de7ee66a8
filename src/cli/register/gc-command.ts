/**
 * `skein gc`: apply the retention policy now.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";

/** Register `gc` on the program. */
export function registerGcCommand(program: Command, wiring: CommandWiring): void {
  program
    .command("gc")
    .description("apply config.json's retention policy now: delete idle sessions, prune large logs")
    .option("--dry-run", "only say what would be removed and how many bytes that frees")
    .option("--json", "print the report as JSON")
    .addHelpText(
      "after",
      '\nThe policy is config.json\'s "retention" section (docs/operations.md, Retention); without one nothing is\nremoved. Loaded, running and waiting sessions are never touched.\n\nExamples:\n  $ skein gc --dry-run\n  $ skein gc --json',
    )
    .action(lazyAction(wiring, () => import("../commands/gc.js"), "collectGarbage"));
}
