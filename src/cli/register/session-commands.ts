/**
 * The commands on whole sessions: list, show, attach, fork, interrupt, compact, repair, rm, verify, and
 * `skein web`, the browser's view of them. They are one group because `skein --help` lists
 * commands in the order they are registered, and this is the order it has always shown.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

/** Register `sessions`, `show`, `attach`, `fork`, `interrupt`, `compact`, `repair`, `web`, `rm` and `verify`. */
export function registerSessionCommands(program: Command, wiring: CommandWiring): void {
  registerReadingCommands(program, wiring);
  registerChangingCommands(program, wiring);
  registerBrowserAndLifecycleCommands(program, wiring);
}

/** `sessions`, `show` and `attach`: read a session, once or live. */
function registerReadingCommands(program: Command, wiring: CommandWiring): void {
  program
    .command("sessions")
    .alias("ls")
    .description("list sessions, most recently active first")
    .option("--json", "print the daemon's session summaries as JSON")
    .option("--here", "only sessions whose workspace is the current directory")
    .option("-n, --limit <n>", "show at most n sessions", wholeNumber)
    .addHelpText(
      "after",
      "\nExamples:\n  $ skein sessions\n  $ skein sessions --here -n 5\n  $ skein sessions --json | jq '.[].id'",
    )
    .action(lazyAction(wiring, () => import("../commands/sessions.js"), "listSessions"));

  program
    .command("show")
    .description("print a session's history (through a pager on a terminal)")
    .argument("<id>", "session id, unique id prefix or name")
    .option("-t, --tail <n>", "only the last n entries", wholeNumber)
    .option("--json", "print the entries as JSON")
    .option("--no-pager", "never use a pager")
    .option("--hide-thinking", "leave out the model's thinking")
    .option("--full", "fetch and show large entries whole (they are cut to their start otherwise)")
    .addHelpText(
      "after",
      "\nEach entry starts with its id in brackets; `skein fork ID --at ENTRY` starts a fork there.\n\nExamples:\n  $ skein show 01a2b3c4-d5\n  $ skein show 01a2b3c4-d5 --tail 20 --no-pager",
    )
    .action(lazyAction(wiring, () => import("../commands/show.js"), "showSession"));

  program
    .command("attach")
    .description("follow a session live (Ctrl-C detaches; the session keeps running)")
    .argument("<id>", "session id, unique id prefix or name")
    .option("-t, --tail <n>", "entries of history to show first (default 10)", wholeNumber)
    .option("--hide-thinking", "do not show the model's thinking")
    .option("--until-idle", "leave once the session is idle with nothing queued")
    .addHelpText(
      "after",
      "\nExamples:\n  $ skein attach 01a2b3c4-d5\n  $ skein attach 01a2b3c4-d5 --until-idle",
    )
    .action(lazyAction(wiring, () => import("../commands/attach.js"), "attachSession"));
}

/** `fork`, `interrupt`, `compact` and `repair`: act on one session. */
function registerChangingCommands(program: Command, wiring: CommandWiring): void {
  program
    .command("fork")
    .description("copy a session's history (up to an entry) into a new session; prints the new id")
    .argument("<id>", "session id, unique id prefix or name")
    .option("--at <entry>", "the history entry to fork at, as `skein show` lists it (default: the newest)")
    .option("--name <name>", "name of the new session")
    .addHelpText(
      "after",
      "\nExamples:\n  $ skein fork 01a2b3c4-d5\n  $ skein fork 01a2b3c4-d5 --at 4 --name try-other-approach",
    )
    .action(lazyAction(wiring, () => import("../commands/fork.js"), "forkSession"));

  program
    .command("interrupt")
    .description("stop a session's running turn and cancel its queued inputs")
    .argument("<id>", "session id, unique id prefix or name")
    .addHelpText("after", "\nExample:\n  $ skein interrupt 01a2b3c4-d5")
    .action(lazyAction(wiring, () => import("../commands/interrupt.js"), "interruptSession"));

  program
    .command("compact")
    .description("summarize a session's older messages so its context is smaller (its history stays whole)")
    .argument("<id>", "session id, unique id prefix or name")
    .action(lazyAction(wiring, () => import("../commands/compact.js"), "compactSession"));

  program
    .command("repair")
    .description("leave log entries out of the model's context (when a provider keeps refusing the history)")
    .argument("<id>", "session id, unique id prefix or name")
    .requiredOption("--from <position>", "the first entry to leave out, as `skein show` tags it", wholeNumber)
    .option("--to <position>", "the last entry to leave out (default: --from)", wholeNumber)
    .addHelpText(
      "after",
      "\nThe entries stay in the session's history (and in `skein show`); only later requests leave them out.\nA turn that a provider refused says when this is the way out.\n\nExamples:\n  $ skein repair 01a2b3c4-d5 --from 12\n  $ skein repair 01a2b3c4-d5 --from 12 --to 15",
    )
    .action(lazyAction(wiring, () => import("../commands/repair.js"), "repairSession"));
}

/** `web`, `rm` and `verify`: the browser's view, deletion, and checking logs. */
function registerBrowserAndLifecycleCommands(program: Command, wiring: CommandWiring): void {
  program
    .command("web")
    .description("print a one-time login link to the web UI, and open it on a desktop")
    .option("--print", "only print the link; do not start a browser")
    .option("--device <name>", "pair a phone or tablet instead: a one-time link and its QR code")
    .option("--role <role>", "with --device: viewer, approver (the default), driver or admin")
    .option("--session <id>", "with --device: the one session the device may reach")
    .addHelpText(
      "after",
      "\nThe link signs one browser in (an HttpOnly cookie, 7 days); it works once, within 2 minutes.\n" +
        "With --device it pairs a phone's browser instead (scan the QR code): signed in for 90 days with\n" +
        "the device's role, until `skein devices revoke NAME`; the link works once, within 10 minutes.\n\n" +
        "Examples:\n  $ skein web\n  $ skein web --print\n  $ skein web --device phone\n  $ skein web --device tablet --role driver",
    )
    .action(lazyAction(wiring, () => import("../commands/web.js"), "openWeb"));

  program
    .command("rm")
    .description("delete sessions and their whole history")
    .argument("<id...>", "session ids, unique id prefixes or names")
    .option("-f, --force", "interrupt a running session first")
    .addHelpText("after", "\nExamples:\n  $ skein rm 01a2b3c4-d5\n  $ skein rm -f 01a2b3c4-d5 01a2b3c5-77")
    .action(lazyAction(wiring, () => import("../commands/remove.js"), "removeSessions"));

  program
    .command("verify")
    .description(
      "check sessions' logs now (every hash, the recorded head, its signature) and print the signed heads",
    )
    .argument("[id...]", "session ids, unique id prefixes or names (default: every session)")
    .option("--json", "print the reports as JSON")
    .addHelpText(
      "after",
      "\nExit status 1 when any log fails verification. Keep the printed heads and the public key elsewhere:\na later rewrite of the log, even with every hash recomputed, no longer matches them.\n\nExamples:\n  $ skein verify\n  $ skein verify 01a2b3c4-d5 --json",
    )
    .action(lazyAction(wiring, () => import("../commands/verify.js"), "verifySessions"));
}
