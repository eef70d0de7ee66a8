/**
 * `skein diff` and `skein undo`: a turn's workspace checkpoints.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";

/** Register `diff` and `undo` on the program. */
export function registerCheckpointCommands(program: Command, wiring: CommandWiring): void {
  program
    .command("diff")
    .description("show what a turn changed in the session's workspace (default: its latest turn)")
    .argument("<id>", "session id, unique id prefix or name")
    .option("--turn <run>", "the turn (a run id prefix, as `skein show` and --json name it)")
    .option("--stat", "only the changed files and line counts")
    .action(lazyAction(wiring, () => import("../commands/checkpoints.js"), "diffTurn"));

  program
    .command("undo")
    .description("put the session's workspace back as it was before a turn (default: its latest turn)")
    .argument("<id>", "session id, unique id prefix or name")
    .option("--turn <run>", "the turn (a run id prefix); later turns' changes are undone too")
    .addHelpText(
      "after",
      "\nThe daemon checkpoints the workspace before and after every turn in a git store under $SKEIN_HOME\n(never the workspace's own .git); files ignored by .gitignore are not checkpointed or restored.",
    )
    .action(lazyAction(wiring, () => import("../commands/checkpoints.js"), "undoTurn"));
}
