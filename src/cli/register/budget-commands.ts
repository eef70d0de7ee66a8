/**
 * `skein budget show|set|clear`: a session's budget (docs/http-api.md, Budgets).
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { costOption } from "./cost-option.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

const commands = () => import("../commands/budget.js");

/** Register `budget` and its subcommands on the program. */
export function registerBudgetCommands(program: Command, wiring: CommandWiring): void {
  const budget = program
    .command("budget")
    .description("show or set what a session's model requests may use (tokens, USD; in total or per UTC day)")
    .addHelpText(
      "after",
      `
A turn that would go past a budget ends with outcome budget_exhausted before its next model request;
raise the budget, then send a message or \`skein run --session ID --continue\`. config.json's "budgets"
sets defaults for every session and caps per provider profile and day.

Examples:
  $ skein budget set my-session --tokens 200000
  $ skein budget set my-session --cost 5 --period day
  $ skein budget show my-session
  $ skein budget clear my-session`,
    );
  budget
    .command("show")
    .description("the tightest budget that applies to the session: its limit, what was used, what is left")
    .argument("<session>", "session id, unique id prefix or name")
    .option("--json", "print the snapshot's budget as JSON")
    .action(lazyAction(wiring, commands, "showBudget"));
  budget
    .command("set")
    .description("set the session's own budget (logged; applies from its next model request)")
    .argument("<session>", "session id, unique id prefix or name")
    .option("--tokens <n>", "most tokens (prompt + output of every request)", wholeNumber)
    .option("--cost <usd>", "most cost in USD, at the profile's prices", costOption)
    .option("--period <period>", "total (default) or day (the current UTC day)")
    .action(lazyAction(wiring, commands, "setBudget"));
  budget
    .command("clear")
    .description("remove the session's own budget (config.json's default applies again, if set)")
    .argument("<session>", "session id, unique id prefix or name")
    .action(lazyAction(wiring, commands, "clearBudget"));
}
