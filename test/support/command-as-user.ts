/**
 * Runs one `run_command` call the way the daemon's agent would, in the process that runs this
 * script: started by a test as another (unprivileged) user, it shows what a daemon run as that
 * user gives its commands. Prints `{"shell": …, "output": …}` as JSON: the shell the daemon
 * would choose (`describeShellChoice`) and the tool's output (an error's message, prefixed
 * `error: `).
 *
 * Usage: `node --import tsx command-as-user.ts '<json CommandRequest>'`.
 *
 * Boundary rule: test support; the real tool, the real shell choice, nothing faked.
 */
import { fileURLToPath } from "node:url";
import type { ToolOutput } from "../../src/model/tools.js";
import { runCommandTool } from "../../src/tools/run-command.js";
import { chooseShell, describeShellChoice, type OfferedShell } from "../../src/tools/shell-mode.js";

/** What to run, where, and how. */
export interface CommandRequest {
  workspace: string;
  command: string;
  /**
   * "network": as chosen with SKEIN_SANDBOX_NETWORK=1; "sandboxed": without it; "unconfined": a
   * plain shell (the control that shows what an unconfined command reaches).
   */
  shell: "network" | "sandboxed" | "unconfined";
  /** Replaces the network helper's slirp4netns (to see a failing helper fail the command). */
  slirp4netns?: string;
}

/** What the script prints. */
export interface CommandReport {
  shell: string;
  output: string;
}

async function main(request: CommandRequest): Promise<CommandReport> {
  const choice =
    request.shell === "unconfined"
      ? ({ mode: "unconfined" } as const)
      : chooseShell({
          shell: "sandboxed",
          env: request.shell === "network" ? { SKEIN_SANDBOX_NETWORK: "1" } : {},
        });
  const shell: OfferedShell | null = choice.mode === "off" ? null : withHelper(choice, request.slirp4netns);
  const described = describeShellChoice(choice).text;
  if (shell === null) return { shell: described, output: "error: no shell" };
  const { tool } = runCommandTool(request.workspace, shell)();
  let output: ToolOutput;
  try {
    output = await tool.execute(JSON.stringify({ command: request.command }), {
      call_id: "call-1",
      signal: new AbortController().signal,
    });
  } catch (error) {
    return { shell: described, output: `error: ${error instanceof Error ? error.message : String(error)}` };
  }
  return { shell: described, output: typeof output === "string" ? output : output.output };
}

function withHelper(shell: OfferedShell, slirp4netns: string | undefined): OfferedShell {
  if (slirp4netns === undefined || shell.mode !== "sandboxed" || shell.network?.kind !== "outbound")
    return shell;
  return { ...shell, network: { kind: "outbound", helper: { ...shell.network.helper, slirp4netns } } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const report = await main(JSON.parse(process.argv[2] ?? "{}") as CommandRequest);
  process.stdout.write(`${JSON.stringify(report)}\n`);
}
