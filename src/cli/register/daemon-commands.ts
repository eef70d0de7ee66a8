/**
 * `skein daemon start|stop|status|logs|run`: the background daemon's lifecycle.
 *
 * Boundary rule: registration only; a command's module is imported when it runs (main.ts says why).
 */
import type { Command } from "commander";
import type { CommandWiring } from "./command-wiring.js";
import { lazyAction } from "./lazy-action.js";
import { wholeNumber } from "./whole-number-option.js";

/** Log records as readable lines on this terminal (`skein daemon run` on a TTY). */
async function readableLogSink(env: NodeJS.ProcessEnv): Promise<{ write(line: string): void }> {
  const { formatLogLine } = await import("../render/log-line.js");
  const { processTerminal } = await import("../render/terminal.js");
  const out = processTerminal(env).out;
  return {
    write: (record: string) => {
      for (const line of record.split("\n"))
        if (line !== "") out.stream.write(`${formatLogLine(line, out.paint)}\n`);
    },
  };
}

/** Register `daemon` and its subcommands on the program. */
export function registerDaemonCommands(program: Command, wiring: CommandWiring): void {
  const { exitWith } = wiring;
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
    .action(lazyAction(wiring, () => import("../commands/daemon-control.js"), "startDaemon"));
  daemon
    .command("stop")
    .description("stop the daemon gracefully (running turns get --timeout to finish)")
    .option("--timeout <seconds>", "seconds running turns get to finish", wholeNumber, 10)
    .action(lazyAction(wiring, () => import("../commands/daemon-control.js"), "stopDaemon"));
  daemon
    .command("status")
    .description("say whether a daemon runs for the home (exit 0 if so, 3 if not)")
    .option("--json", "print the status as JSON")
    .action(lazyAction(wiring, () => import("../commands/daemon-control.js"), "daemonStatus"));
  daemon
    .command("logs")
    .description("print the daemon's log ($SKEIN_HOME/daemon.log)")
    .option("-n, --lines <n>", "number of lines", wholeNumber, 50)
    .option("-f, --follow", "keep printing new lines (Ctrl-C stops)")
    .option("--json", "print the raw JSON records instead of readable lines")
    .action(lazyAction(wiring, () => import("../commands/daemon-control.js"), "daemonLogs"));
  daemon
    .command("run")
    .description("run the daemon in the foreground (settings from SKEIN_* environment variables)")
    .addHelpText(
      "after",
      "\nEnvironment:\n  SKEIN_HOME  data folder (default ~/.skein)\n  SKEIN_PORT  port on 127.0.0.1 (default: chosen once)\n" +
        "  SKEIN_TOKEN bearer token (default: random per start)\n  SKEIN_DB    SQLite file (default $SKEIN_HOME/skein.sqlite) or postgres:// URL\n" +
        "  SKEIN_INSPECT=1  enable /debug routes\n  SKEIN_UNLOAD_SECONDS  unload idle sessions after this (default 3600)\n" +
        "  SKEIN_LOG_FORMAT=json  raw JSON log records on a terminal too (readable lines otherwise)\n" +
        "  SKEIN_V8_FLAGS  V8 flags instead of the daemon's own (--interrupt-budget=270336, then --always-sparkplug); none: V8's defaults\n",
    )
    .option("--json", "log raw JSON records even on a terminal (they are JSON whenever stdout is not one)")
    .action(async (options: { json?: boolean }, command: Command) => {
      const home = command.optsWithGlobals<{ home?: string }>().home;
      const env = home === undefined ? process.env : { ...process.env, SKEIN_HOME: home };
      const { loadDaemon } = await import("../load-daemon.js");
      const { applyDaemonV8Flags } = await import("../daemon-v8-flags.js");
      const { runDaemonForeground } = await loadDaemon();
      const readable =
        options.json !== true && env.SKEIN_LOG_FORMAT !== "json" && process.stdout.isTTY === true;
      exitWith(
        await runDaemonForeground(env, {
          ...(readable ? { logSink: await readableLogSink(env) } : {}),
          onServing: () => applyDaemonV8Flags(process.env, "onceServing"),
        }),
      );
    });
}
