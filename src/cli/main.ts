/**
 * `skein`: the command line. Every command except `daemon run` talks to the daemon through its
 * HTTP API (src/client); `daemon run` loads the daemon itself (load-daemon.ts).
 *
 * Boundary rule: argument parsing and dispatch only. The client path must stay light
 * (`skein run` is benchmarked): each command's module is imported when that command runs, so
 * the daemon's modules (fastify, SQLite) and the provider clients load only for the
 * subcommands that need them.
 */
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { skeinHome } from "../api/home.js";
import { packageVersion } from "../api/package-version.js";
import { type CliContext, processContext } from "./cli-context.js";
import { describeFailure } from "./cli-error.js";
import { exitCodes } from "./exit-codes.js";
import { effortOption, temperatureOption } from "./session-settings-options.js";

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

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 0) throw new InvalidArgumentError("expected a whole number");
  return parsed;
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

  program
    .command("chat", { isDefault: true })
    .description("chat with an agent working in the current directory (the default command)")
    .option("-s, --session <id>", "continue this session (id, unique id prefix or name)")
    .option("-c, --continue", "continue the most recent session of this directory")
    .option("--hide-thinking", "do not show the model's thinking (/thinking toggles it)")
    .option("--name <name>", "name of a new session")
    .option("--profile <name>", "provider profile (default: the active one); changes a continued session")
    .option("--model <model>", "model (default: the profile's); changes a continued session")
    .option("--effort <level>", "how hard the model thinks: minimal, low, medium, high, xhigh", effortOption)
    .option("--max-tokens <n>", "output limit of each model request", positiveInteger)
    .option(
      "--temperature <t>",
      "sampling temperature, 0 to 2 (where the model accepts it)",
      temperatureOption,
    )
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
    .action(async (options, command: Command) => {
      const { chat } = await import("./commands/chat.js");
      exitCode = await chat(context(command), options);
    });

  program
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
    .option("--model <model>", "model (default: the profile's); with --session, changes it")
    .option("--effort <level>", "how hard the model thinks: minimal, low, medium, high, xhigh", effortOption)
    .option("--max-tokens <n>", "output limit of each model request", positiveInteger)
    .option(
      "--temperature <t>",
      "sampling temperature, 0 to 2 (where the model accepts it)",
      temperatureOption,
    )
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
5 when the turn waits for an approval (the call stays waiting: answer it with skein approve/deny).

Examples:
  $ skein "list the TODOs in src/"
  $ skein run -c "now fix the first one"
  $ skein run --session 01a2b3c4-d5 "and the second"
  $ skein run --ephemeral --json "summarise README.md" | tail -n 1 | jq -r .text
  $ echo "write a haiku" | skein run -
  $ skein run --json "hi" | jq -c 'select(.type=="text")'`,
    )
    .action(async (prompt: string, options, command: Command) => {
      const { runPrompt } = await import("./commands/run-prompt.js");
      exitCode = await runPrompt(context(command), prompt, options);
    });

  program
    .command("approve")
    .description("allow a tool call that waits for approval")
    .argument("<session>", "session id, unique id prefix or name")
    .argument("<call>", "the call's id (or a unique prefix), as `skein approvals` lists it")
    .option("-a, --always", "also allow matching calls for the rest of the session")
    .option("-m, --message <text>", "the reply, for an ask_user question")
    .addHelpText(
      "after",
      '\nExamples:\n  $ skein approvals\n  $ skein approve 01a2b3c4-d5 call_7Hq\n  $ skein approve 01a2b3c4-d5 call_9 -m "blue"',
    )
    .action(async (session: string, call: string, options, command: Command) => {
      const { answerCall } = await import("./commands/approve.js");
      exitCode = await answerCall(context(command), "allow", session, call, options);
    });

  program
    .command("deny")
    .description("refuse a tool call that waits for approval (the model is told, with your message)")
    .argument("<session>", "session id, unique id prefix or name")
    .argument("<call>", "the call's id (or a unique prefix)")
    .option("-m, --message <text>", "why, or what to do instead (the model reads it)")
    .addHelpText("after", '\nExample:\n  $ skein deny 01a2b3c4-d5 call_7Hq -m "use the Makefile instead"')
    .action(async (session: string, call: string, options, command: Command) => {
      const { answerCall } = await import("./commands/approve.js");
      exitCode = await answerCall(context(command), "deny", session, call, options);
    });

  program
    .command("approvals")
    .description("list the tool calls that wait for approval (of one session, or of all)")
    .argument("[session]", "session id, unique id prefix or name")
    .option("--json", "print them as JSON")
    .action(async (session: string | undefined, options, command: Command) => {
      const { listApprovals } = await import("./commands/approve.js");
      exitCode = await listApprovals(context(command), session, options);
    });

  program
    .command("sessions")
    .alias("ls")
    .description("list sessions, most recently active first")
    .option("--json", "print the daemon's session summaries as JSON")
    .option("--here", "only sessions whose workspace is the current directory")
    .option("-n, --limit <n>", "show at most n sessions", positiveInteger)
    .addHelpText(
      "after",
      "\nExamples:\n  $ skein sessions\n  $ skein sessions --here -n 5\n  $ skein sessions --json | jq '.[].id'",
    )
    .action(async (options, command: Command) => {
      const { listSessions } = await import("./commands/sessions.js");
      exitCode = await listSessions(context(command), options);
    });

  program
    .command("show")
    .description("print a session's history (through a pager on a terminal)")
    .argument("<id>", "session id, unique id prefix or name")
    .option("-t, --tail <n>", "only the last n entries", positiveInteger)
    .option("--json", "print the entries as JSON")
    .option("--no-pager", "never use a pager")
    .option("--hide-thinking", "leave out the model's thinking")
    .option("--full", "fetch and show large entries whole (they are cut to their start otherwise)")
    .addHelpText(
      "after",
      "\nEach entry starts with its id in brackets; `skein fork ID --at ENTRY` starts a fork there.\n\nExamples:\n  $ skein show 01a2b3c4-d5\n  $ skein show 01a2b3c4-d5 --tail 20 --no-pager",
    )
    .action(async (id: string, options, command: Command) => {
      const { showSession } = await import("./commands/show.js");
      exitCode = await showSession(context(command), id, options);
    });

  program
    .command("attach")
    .description("follow a session live (Ctrl-C detaches; the session keeps running)")
    .argument("<id>", "session id, unique id prefix or name")
    .option("-t, --tail <n>", "entries of history to show first (default 10)", positiveInteger)
    .option("--hide-thinking", "do not show the model's thinking")
    .option("--until-idle", "leave once the session is idle with nothing queued")
    .addHelpText(
      "after",
      "\nExamples:\n  $ skein attach 01a2b3c4-d5\n  $ skein attach 01a2b3c4-d5 --until-idle",
    )
    .action(async (id: string, options, command: Command) => {
      const { attachSession } = await import("./commands/attach.js");
      exitCode = await attachSession(context(command), id, options);
    });

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
    .action(async (id: string, options, command: Command) => {
      const { forkSession } = await import("./commands/fork.js");
      exitCode = await forkSession(context(command), id, options);
    });

  program
    .command("interrupt")
    .description("stop a session's running turn and cancel its queued inputs")
    .argument("<id>", "session id, unique id prefix or name")
    .addHelpText("after", "\nExample:\n  $ skein interrupt 01a2b3c4-d5")
    .action(async (id: string, _options, command: Command) => {
      const { interruptSession } = await import("./commands/interrupt.js");
      exitCode = await interruptSession(context(command), id);
    });

  program
    .command("compact")
    .description("summarize a session's older messages so its context is smaller (its history stays whole)")
    .argument("<id>", "session id, unique id prefix or name")
    .action(async (id: string, _options, command: Command) => {
      exitCode = await (await import("./commands/compact.js")).compactSession(context(command), id);
    });

  program
    .command("web")
    .description("print a one-time login link to the web UI, and open it on a desktop")
    .option("--print", "only print the link; do not start a browser")
    .addHelpText(
      "after",
      "\nThe link signs one browser in (an HttpOnly cookie, 7 days); it works once, within 2 minutes.\n\nExamples:\n  $ skein web\n  $ skein web --print",
    )
    .action(async (options, command: Command) => {
      const { openWeb } = await import("./commands/web.js");
      exitCode = await openWeb(context(command), options);
    });

  program
    .command("rm")
    .description("delete sessions and their whole history")
    .argument("<id...>", "session ids, unique id prefixes or names")
    .option("-f, --force", "interrupt a running session first")
    .addHelpText("after", "\nExamples:\n  $ skein rm 01a2b3c4-d5\n  $ skein rm -f 01a2b3c4-d5 01a2b3c5-77")
    .action(async (ids: string[], options, command: Command) => {
      const { removeSessions } = await import("./commands/remove.js");
      exitCode = await removeSessions(context(command), ids, options);
    });

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
    .action(async (ids: string[], options, command: Command) => {
      const { verifySessions } = await import("./commands/verify.js");
      exitCode = await verifySessions(context(command), ids, options);
    });

  const daemon = program
    .command("daemon")
    .description("run and manage the background daemon")
    .addHelpText(
      "after",
      "\nCommands that need the daemon start it in the background when none runs; its output goes to $SKEIN_HOME/daemon.log.\n\nExamples:\n  $ skein daemon start\n  $ skein daemon status\n  $ skein daemon logs -f\n  $ skein daemon stop",
    );
  daemon
    .command("start")
    .description("start the daemon in the background (no-op when one runs)")
    .action(async (_options, command: Command) => {
      const { startDaemon } = await import("./commands/daemon-control.js");
      exitCode = await startDaemon(context(command));
    });
  daemon
    .command("stop")
    .description("stop the daemon gracefully (running turns get --timeout to finish)")
    .option("--timeout <seconds>", "seconds running turns get to finish", positiveInteger, 10)
    .action(async (options: { timeout: number }, command: Command) => {
      const { stopDaemon } = await import("./commands/daemon-control.js");
      exitCode = await stopDaemon(context(command), { timeoutMs: options.timeout * 1000 });
    });
  daemon
    .command("status")
    .description("say whether a daemon runs for the home (exit 0 if so, 3 if not)")
    .option("--json", "print the status as JSON")
    .action(async (options, command: Command) => {
      const { daemonStatus } = await import("./commands/daemon-control.js");
      exitCode = await daemonStatus(context(command), options);
    });
  daemon
    .command("logs")
    .description("print the daemon's log ($SKEIN_HOME/daemon.log)")
    .option("-n, --lines <n>", "number of lines", positiveInteger, 50)
    .option("-f, --follow", "keep printing new lines (Ctrl-C stops)")
    .option("--json", "print the raw JSON records instead of readable lines")
    .action(async (options: { lines: number; follow?: boolean; json?: boolean }, command: Command) => {
      const { daemonLogs } = await import("./commands/daemon-control.js");
      exitCode = await daemonLogs(context(command), options);
    });
  daemon
    .command("run")
    .description("run the daemon in the foreground (settings from SKEIN_* environment variables)")
    .addHelpText(
      "after",
      "\nEnvironment:\n  SKEIN_HOME  data folder (default ~/.skein)\n  SKEIN_PORT  port on 127.0.0.1 (default: chosen once)\n" +
        "  SKEIN_TOKEN bearer token (default: random per start)\n  SKEIN_DB    SQLite file (default $SKEIN_HOME/skein.sqlite) or postgres:// URL\n" +
        "  SKEIN_INSPECT=1  enable /debug routes\n  SKEIN_UNLOAD_SECONDS  unload idle sessions after this (default 3600)\n",
    )
    .action(async (_options, command: Command) => {
      const home = command.optsWithGlobals<{ home?: string }>().home;
      const env = home === undefined ? process.env : { ...process.env, SKEIN_HOME: home };
      const { loadDaemon } = await import("./load-daemon.js");
      const { runDaemonForeground } = await loadDaemon();
      exitCode = await runDaemonForeground(env);
    });

  const config = program
    .command("config")
    .description("manage provider profiles ($SKEIN_HOME/config.json)")
    .addHelpText(
      "after",
      `
Examples:
  $ skein config add openai --protocol responses --model gpt-5-mini --api-key-env OPENAI_API_KEY
  $ skein config add claude --protocol anthropic --model claude-sonnet-4-5 --api-key-env ANTHROPIC_API_KEY
  $ skein config add gemini --protocol gemini --model gemini-2.5-flash --api-key-env GEMINI_API_KEY
  $ skein config add local --protocol chat_completions --base-url http://localhost:11434/v1 --model qwen3:8b
  $ skein config list
  $ skein config use claude
  $ skein config test`,
    );
  config
    .command("add")
    .description("add (or replace) a provider profile; the first one becomes active")
    .argument("<name>", "profile name (letters, digits, . _ -)")
    .requiredOption("--protocol <protocol>", "chat_completions | responses | anthropic | gemini")
    .requiredOption("--model <model>", "model name as the provider knows it")
    .option("--base-url <url>", "API root (default: the vendor's public endpoint)")
    .option("--api-key-env <var>", "read the API key from this environment variable (of the daemon)")
    .option("--api-key <key>", 'store the API key in config.json (mode 0600); "-" reads it from stdin')
    .option("--header <header...>", 'extra HTTP header "Name: value" (repeatable)')
    .option("--use", "make it the active profile")
    .addHelpText(
      "after",
      `
Examples:
  $ skein config add openai --protocol responses --model gpt-5-mini --api-key-env OPENAI_API_KEY
  $ skein config add ollama --protocol chat_completions --base-url http://localhost:11434/v1 --model qwen3:8b
  $ printf %s "$KEY" | skein config add work --protocol anthropic --model claude-sonnet-4-5 --api-key -`,
    )
    .action(async (name: string, options, command: Command) => {
      const { addProfile } = await import("./commands/provider-config.js");
      exitCode = await addProfile(context(command), name, options);
    });
  config
    .command("list")
    .description("list provider profiles (* marks the active one; keys are never shown)")
    .option("--json", "print as JSON")
    .action(async (options, command: Command) => {
      const { listProfiles } = await import("./commands/provider-config.js");
      exitCode = listProfiles(context(command), options);
    });
  config
    .command("remove")
    .alias("rm")
    .description("remove a provider profile")
    .argument("<name>")
    .action(async (name: string, _options, command: Command) => {
      const { removeProfile } = await import("./commands/provider-config.js");
      exitCode = await removeProfile(context(command), name);
    });
  config
    .command("use")
    .description("make a profile the active one (used by new sessions)")
    .argument("<name>")
    .action(async (name: string, _options, command: Command) => {
      const { useProfile } = await import("./commands/provider-config.js");
      exitCode = await useProfile(context(command), name);
    });
  config
    .command("test")
    .description("send one tiny request to a provider (default: the active profile) and report what happened")
    .argument("[name]")
    .option("--timeout <seconds>", "give up after this long", positiveInteger, 30)
    .action(async (name: string | undefined, options: { timeout: number }, command: Command) => {
      const { testProfile } = await import("./commands/provider-config.js");
      exitCode = await testProfile(context(command), name, { timeoutMs: options.timeout * 1000 });
    });

  const mcp = program
    .command("mcp")
    .description("manage MCP servers, whose tools sessions' agents get ($SKEIN_HOME/config.json)")
    .addHelpText(
      "after",
      `
New sessions use every configured server (PUT /sessions/{id} may name some with mcp_servers).
A server starts when a session first uses it and is shared by all sessions; one whose command,
args, cwd or env mention \${workspace} runs once per workspace, with the session's workspace there.

Examples:
  $ skein mcp add fs -- npx -y @modelcontextprotocol/server-filesystem '\${workspace}'
  $ skein mcp add github --env 'GITHUB_PERSONAL_ACCESS_TOKEN=\${env:GITHUB_TOKEN}' -- npx -y @modelcontextprotocol/server-github
  $ skein mcp add remote --url https://mcp.example.com/mcp --header 'Authorization: Bearer \${env:REMOTE_TOKEN}'
  $ skein mcp test fs
  $ skein mcp list`,
    );
  mcp
    .command("list")
    .alias("ls")
    .description("list MCP servers: state, tools, last error (asks the daemon)")
    .option("--json", "print the daemon's GET /mcp answer")
    .action(async (options, command: Command) => {
      const { listMcpServers } = await import("./commands/mcp.js");
      exitCode = await listMcpServers(context(command), options);
    });
  mcp
    .command("add")
    .description("add (or replace) an MCP server: a command after --, or --url")
    .argument("<name>", 'server name (a letter, then letters, digits, "_" or "-"; at most 32)')
    .argument("[command...]", "the command that runs a stdio server, after --")
    .option("--url <url>", "a Streamable HTTP server's URL")
    .option(
      "--env <NAME=value...>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, shown in help
      "environment of a stdio server (repeatable; ${env:NAME} reads the daemon's)",
    )
    .option("--header <header...>", 'HTTP header "Name: value" of a remote server (repeatable)')
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, shown in help
    .option("--cwd <dir>", "working directory of a stdio server (absolute, or ${workspace})")
    .option("--timeout-ms <ms>", "how long one tool call may take (default 60000)", positiveInteger)
    .action(async (name: string, commandLine: string[], options, command: Command) => {
      const { addMcpServer } = await import("./commands/mcp.js");
      exitCode = await addMcpServer(context(command), name, commandLine, options);
    });
  mcp
    .command("remove")
    .alias("rm")
    .description("remove an MCP server (the daemon stops it)")
    .argument("<name>")
    .action(async (name: string, _options, command: Command) => {
      const { removeMcpServer } = await import("./commands/mcp.js");
      exitCode = await removeMcpServer(context(command), name);
    });
  mcp
    .command("test")
    .description("start a server in the daemon now and list its tools, or say why it fails")
    .argument("<name>")
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a config placeholder, shown in help
    .option("--workspace <dir>", "the workspace for ${workspace} (default: the current directory)")
    .action(async (name: string, options: { workspace?: string }, command: Command) => {
      const { testMcpServer } = await import("./commands/mcp.js");
      exitCode = await testMcpServer(context(command), name, options);
    });

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
