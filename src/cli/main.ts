/**
 * `skein`: the command line. Every command except `daemon run` talks to the daemon through its
 * HTTP API (src/client); `daemon run` loads the daemon itself (load-daemon.ts).
 *
 * Boundary rule: argument parsing and dispatch only. The client path must stay light
 * (`skein run` is benchmarked): each command's module is imported when that command runs, so
 * the daemon's modules (fastify, SQLite) and the provider clients load only for the
 * subcommands that need them.
 */
import { Command, CommanderError } from "commander";
import { skeinHome } from "../home/home.js";
import { packageVersion } from "../home/package-version.js";
import { type CliContext, processContext } from "./cli-context.js";
import { describeFailure } from "./cli-error.js";
import { exitCodes } from "./exit-codes.js";
import { registerApprovalCommands } from "./register/approval-commands.js";
import { registerAuthCommands } from "./register/auth-commands.js";
import { registerBackupCommands } from "./register/backup-commands.js";
import { registerBudgetCommands } from "./register/budget-commands.js";
import { registerCheckpointCommands } from "./register/checkpoint-commands.js";
import type { CommandWiring } from "./register/command-wiring.js";
import { registerConfigCommands } from "./register/config-commands.js";
import { registerDaemonCommands } from "./register/daemon-commands.js";
import { registerDoctorCommand } from "./register/doctor-command.js";
import { registerGcCommand } from "./register/gc-command.js";
import { registerMcpCommands } from "./register/mcp-commands.js";
import { registerScheduleCommands } from "./register/schedule-commands.js";
import { registerSessionCommands } from "./register/session-commands.js";
import { registerDeviceCommands, registerTokenCommands } from "./register/token-commands.js";
import { registerTurnCommands } from "./register/turn-commands.js";

const exitCodeHelp = `
Exit codes:
  0    success
  1    the command failed (a turn failed, the provider or the daemon refused)
  2    usage error (unknown option, missing argument, ambiguous session id)
  3    no daemon could be reached or started
  4    session or profile not found
  5    (run) the turn waits for an approval and --approve was not given
  75   (daemon run) another daemon already owns this home
  130  interrupted with Ctrl-C`;

const environmentHelp = `
Environment:
  SKEIN_HOME           data folder (default ~/.skein); --home overrides it
  SKEIN_NO_AUTOSTART=1 never start a daemon in the background (exit 3 instead)
  NO_COLOR             no colours (colours and spinners are also off when output is piped)
  PAGER, SKEIN_PAGER   pager for \`skein show\` (default "less -FRX")`;

const mainExamples = `
Examples:
  $ skein                                   chat in a new session in this directory
  $ skein run "summarise README.md"         one turn, answer on stdout
  $ skein "summarise README.md"             the same (a first word that is no command is a prompt)
  $ git diff | skein run -                  the prompt from stdin
  $ skein sessions                          list sessions
  $ skein doctor                            check the setup and print fixes
  $ skein chat --session 01a2b3c4-d5        continue a session (any unique id prefix)
  $ skein config add openai --protocol responses --model gpt-5-mini --api-key-env OPENAI_API_KEY
${exitCodeHelp}
${environmentHelp}`;

/**
 * `skein "prompt"` means `skein run "prompt"`: a first argument that is neither an option nor a
 * command is a prompt, unless it is one word close to a command's name (a typo, refused).
 */
function promptShorthand(
  argv: readonly string[],
  known: readonly string[],
): { kind: "command" } | { kind: "prompt" } | { kind: "typo"; word: string; command: string } {
  const first = argv[0];
  if (first === undefined || first.startsWith("-") || known.includes(first)) return { kind: "command" };
  if (/\s/.test(first.trim())) return { kind: "prompt" };
  const close = known.find(
    (name) => editDistance(first.toLowerCase(), name) <= Math.min(2, Math.floor(name.length / 3)),
  );
  return close === undefined ? { kind: "prompt" } : { kind: "typo", word: first, command: close };
}

/** Levenshtein distance (short words only: command names). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Parse `argv` and run the command; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode: number = exitCodes.ok;
  const program = new Command("skein")
    .description("Skein: durable LLM agent sessions, from the terminal")
    .version(packageVersion(), "-V, --version", "print the version")
    .helpOption("-h, --help", "show help")
    .option("--home <dir>", "data folder (default: $SKEIN_HOME or ~/.skein)")
    .showHelpAfterError("(add --help for usage)")
    .exitOverride()
    .addHelpText("after", mainExamples);

  const context = (command: Command): CliContext => {
    const home = command.optsWithGlobals<{ home?: string }>().home;
    return processContext(home === undefined ? skeinHome() : skeinHome({ SKEIN_HOME: home }));
  };

  const wiring: CommandWiring = {
    context,
    exitWith: (code) => {
      exitCode = code;
    },
  };
  // The order of these calls is the order `skein --help` lists the commands in.
  registerTurnCommands(program, wiring);
  registerApprovalCommands(program, wiring);
  registerSessionCommands(program, wiring);
  registerCheckpointCommands(program, wiring);
  registerScheduleCommands(program, wiring);
  registerBudgetCommands(program, wiring);
  registerDoctorCommand(program, wiring);
  registerDaemonCommands(program, wiring);
  registerBackupCommands(program, wiring);
  registerGcCommand(program, wiring);
  registerConfigCommands(program, wiring);
  registerAuthCommands(program, wiring);
  registerTokenCommands(program, wiring);
  registerDeviceCommands(program, wiring);
  registerMcpCommands(program, wiring);

  const known = ["help", ...program.commands.flatMap((command) => [command.name(), ...command.aliases()])];
  const shorthand = promptShorthand(argv, known);
  if (shorthand.kind === "typo") {
    process.stderr.write(
      `skein: unknown command "${shorthand.word}"; did you mean "${shorthand.command}"? (to send it as a prompt: skein run ${shorthand.word})\n`,
    );
    return exitCodes.usage;
  }

  try {
    await program.parseAsync(shorthand.kind === "prompt" ? ["run", ...argv] : [...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === "commander.helpDisplayed" ||
        error.code === "commander.version" ||
        error.code === "commander.help"
      ) {
        return exitCodes.ok;
      }
      return exitCodes.usage;
    }
    const failure = describeFailure(error);
    process.stderr.write(`skein: ${failure.message}\n`);
    if (failure.hint !== undefined) process.stderr.write(`hint: ${failure.hint}\n`);
    return failure.exitCode;
  }
}
