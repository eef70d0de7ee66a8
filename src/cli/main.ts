/**
 * `skein`: the command line. For now it runs the daemon in the foreground; the interactive
 * client commands build on the daemon's HTTP API.
 */
import { Command } from "commander";
import { packageVersion, runDaemonForeground } from "../daemon/daemon.js";

/** Parse `argv` and run the command; resolves with the process exit code. */
export async function main(argv: readonly string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command("skein")
    .description("Skein: a durable runtime for LLM agent sessions")
    .version(packageVersion(), "-V, --version")
    .showHelpAfterError();
  const daemon = program.command("daemon").description("run and manage the local daemon");
  daemon
    .command("run")
    .description("run the daemon in the foreground (settings from SKEIN_* environment variables)")
    .addHelpText(
      "after",
      "\nEnvironment:\n  SKEIN_HOME  data folder (default ~/.skein)\n  SKEIN_PORT  port on 127.0.0.1 (default: chosen once)\n" +
        "  SKEIN_TOKEN bearer token (default: random per start)\n  SKEIN_DB    SQLite file (default $SKEIN_HOME/skein.sqlite)\n" +
        "  SKEIN_INSPECT=1  enable /debug routes\n  SKEIN_UNLOAD_SECONDS  unload idle sessions after this (default 3600)\n",
    )
    .action(async () => {
      exitCode = await runDaemonForeground();
    });
  await program.parseAsync([...argv], { from: "user" });
  return exitCode;
}
