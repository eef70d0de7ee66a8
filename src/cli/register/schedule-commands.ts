/**
 * `skein schedule add|list|pause|resume|remove`: prompts fired on a cron expression or at a time.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { costOption } from "./cost-option.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

const commands = () => import("../commands/schedules.js");

/** Register `schedule` and its subcommands on the program. */
export function registerScheduleCommands(program: Command, wiring: CommandWiring): void {
  const schedule = program
    .command("schedule")
    .description("fire a prompt into a session on a cron expression or at a time (kept by the daemon)")
    .addHelpText(
      "after",
      `
Each firing is an input whose id derives from the schedule and the firing time, so it is admitted
once even across restarts and nodes. Missed firings (no daemon running then) follow --missed.

Examples:
  $ skein schedule add "0 7 * * *" --timezone Europe/Berlin --session my-session "summarise yesterday's commits"
  $ skein schedule add "*/15 * * * *" --new --workspace ~/project "run the tests and report failures"
  $ skein schedule add 2026-12-24T18:00:00Z --session my-session --missed run_once "wish everyone a merry Christmas"
  $ skein schedule list`,
    );
  schedule
    .command("add")
    .description("add a schedule")
    .argument("<when>", "a cron expression (5 or 6 fields, seconds first) or an RFC 3339 time (one firing)")
    .argument("<prompt>", "the prompt each firing sends")
    .option("--session <id>", "fire into this session (id, unique id prefix or name)")
    .option("--new", "fire into a new session each time")
    .option("--workspace <dir>", "the new sessions' workspace (default: the current directory)")
    .option("--profile <name>", "the new sessions' provider profile")
    .option("--timezone <zone>", "the cron expression's IANA time zone (default UTC)")
    .option("--missed <policy>", "firings missed while no daemon ran: skip (default) or run_once")
    .option("--id <id>", "the schedule's id (default: a new UUIDv7)")
    .option("--budget-tokens <n>", "most tokens the schedule's firings may use together", wholeNumber)
    .option("--budget-cost <usd>", "most cost in USD the schedule's firings may use together", costOption)
    .option("--budget-period <period>", "what the budget counts: total (default) or day (per UTC day)")
    .option("--json", "print the daemon's answer")
    .action(lazyAction(wiring, commands, "addSchedule"));
  schedule
    .command("list")
    .alias("ls")
    .description("list schedules: timing, target, next and last firing")
    .option("--json", "print every schedule as one JSON array")
    .action(lazyAction(wiring, commands, "listSchedules"));
  schedule
    .command("pause")
    .description("stop firing a schedule until resumed")
    .argument("<id>", "schedule id")
    .action(lazyAction(wiring, commands, "pauseSchedule"));
  schedule
    .command("resume")
    .description("fire a paused schedule again (firings missed meanwhile follow its missed policy)")
    .argument("<id>", "schedule id")
    .action(lazyAction(wiring, commands, "resumeSchedule"));
  schedule
    .command("remove")
    .alias("rm")
    .description("remove a schedule (inputs it already admitted stay)")
    .argument("<id>", "schedule id")
    .action(lazyAction(wiring, commands, "removeSchedule"));
}
