/**
 * `skein auth set|list|remove`: the API keys of provider profiles, kept in the home's secrets file.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";

/** Register `auth` and its subcommands on the program. */
export function registerAuthCommands(program: Command, wiring: CommandWiring): void {
  const auth = program
    .command("auth")
    .description("store provider API keys where the daemon reads them ($SKEIN_HOME/secrets.json)")
    .addHelpText(
      "after",
      `
The daemon uses a profile's key from, in order: the profile's "apiKey" in config.json, the
key stored here, the variable its "apiKeyEnv" names (when the daemon's environment has it).
A stored key is used from the next turn; no restart is needed.

Examples:
  $ skein auth set openai                 # asks for the key without echoing it
  $ printf %s "$KEY" | skein auth set claude
  $ skein auth list
  $ skein auth remove openai`,
    );
  auth
    .command("set")
    .description(
      "store the API key of a profile, read from a hidden prompt or from stdin (never from arguments)",
    )
    .argument("<profile>")
    .action(lazyAction(wiring, () => import("../commands/auth.js"), "setKey"));
  auth
    .command("list")
    .description("list the profiles that have a stored key (keys are never shown)")
    .option("--json", "print as JSON")
    .action(lazyAction(wiring, () => import("../commands/auth.js"), "listKeys"));
  auth
    .command("remove")
    .alias("rm")
    .description("forget the stored key of a profile")
    .argument("<profile>")
    .action(lazyAction(wiring, () => import("../commands/auth.js"), "removeKey"));
}
