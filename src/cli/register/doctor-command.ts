/**
 * `skein doctor`: the setup check.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

/** Register `doctor` on the program. */
export function registerDoctorCommand(program: Command, wiring: CommandWiring): void {
  program
    .command("doctor")
    .description(
      "check node, the daemon, config.json, each provider profile, the command sandbox and disk space",
    )
    .option("--json", "print the checks as JSON")
    .option("--timeout <seconds>", "how long each profile's test request may take", wholeNumber, 20)
    .addHelpText(
      "after",
      "\nExit status 1 when any check fails (warnings do not fail); each failure prints its fix.",
    )
    .action(lazyAction(wiring, () => import("../commands/doctor.js"), "doctor"));
}
