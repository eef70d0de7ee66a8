/**
 * `skein chat` (the default command) and `skein run`: the commands that run turns.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import { effortOption, temperatureOption } from "../session-settings-options.js";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

/** Register `chat` and `run` on the program. */
export function registerTurnCommands(program: Command, wiring: CommandWiring): void {
  const chat = program
    .command("chat", { isDefault: true })
    .description("chat with an agent working in the current directory (the default command)")
    .option("-s, --session <id>", "continue this session (id, unique id prefix or name)")
    .option("-c, --continue", "continue the most recent session of this directory")
    .option("--hide-thinking", "do not show the model's thinking (/thinking toggles it)")
    .option("--name <name>", "name of a new session")
    .option("--profile <name>", "provider profile (default: the active one); changes a continued session")
    .option("--model <model>", "model (default: the profile's); changes a continued session");
  withModelSettingOptions(chat)
    .addHelpText(
      "after",
      `
Keys: Enter sends (during a turn: queues); Alt-Enter, Shift-Enter, Ctrl-J or \\ at the end of a line: newline;
Up/Down and Ctrl-R: earlier prompts; Tab completes /commands and @paths (@path attaches a file);
Ctrl-C interrupts the running turn; Ctrl-C twice on an empty prompt, or Ctrl-D, exits.
Commands: /help /new /sessions /fork /model /effort /compact /copy /thinking /status /id /exit

Examples:
  $ skein
  $ skein chat --session 01a2b3c4-d5 --hide-thinking
  $ skein chat -c`,
    )
    .action(lazyAction(wiring, () => import("../commands/chat.js"), "chat"));

  const run = program
    .command("run")
    .description("run one turn and print the answer")
    .argument("<prompt>", 'the prompt; "-" reads it from stdin')
    .option("-s, --session <id>", "run in this session (default: a new session in this directory)")
    .option("-c, --continue", "run in the most recent session of this directory (a new one if none)")
    .option("--ephemeral", "delete the new session afterwards (scripts leave nothing behind)")
    .option("--json", 'print the stream events as NDJSON, then one {"type":"result",…} line')
    .option("--hide-thinking", "do not show the model's thinking on stderr")
    .option("--name <name>", "name of a new session")
    .option("--profile <name>", "provider profile (default: the active one); with --session, changes it")
    .option("--model <model>", "model (default: the profile's); with --session, changes it");
  withModelSettingOptions(run)
    .option(
      "--approve",
      "allow every tool call the turn asks about (recorded as answered by skein run --approve)",
    )
    .addHelpText(
      "after",
      `
The answer goes to stdout; the session id, tool calls, thinking and notices go to stderr.
\`skein "prompt"\` is short for \`skein run "prompt"\`. A new session whose turn fails before the
model answers is deleted again; --ephemeral deletes it in any case. When the reader of stdout
goes away (\`skein run … | head\`) the turn is interrupted.
Exit status: 0 when the turn completed, 1 when it failed (the error is on stderr), 130 when interrupted,
5 when the turn waits for an approval (the call stays waiting: answer it with skein approve/deny),
6 when a budget stopped the turn (budget_exhausted: see skein budget).

Examples:
  $ skein "list the TODOs in src/"
  $ skein run -c "now fix the first one"
  $ skein run --session 01a2b3c4-d5 "and the second"
  $ skein run --ephemeral --json "summarise README.md" | tail -n 1 | jq -r .text
  $ echo "write a haiku" | skein run -
  $ skein run --json "hi" | jq -c 'select(.type=="text")'`,
    )
    .action(lazyAction(wiring, () => import("../commands/run-prompt.js"), "runPrompt"));
}

/** `command` with the model settings a turn may set (`--effort`, `--max-tokens`, `--temperature`), in help order. */
function withModelSettingOptions(command: Command): Command {
  return command
    .option("--effort <level>", "how hard the model thinks: minimal, low, medium, high, xhigh", effortOption)
    .option("--max-tokens <n>", "output limit of each model request", wholeNumber)
    .option(
      "--temperature <t>",
      "sampling temperature, 0 to 2 (where the model accepts it)",
      temperatureOption,
    );
}
