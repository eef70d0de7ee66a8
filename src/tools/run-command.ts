/**
 * `run_command`: runs `sh -c <command>` in the session's workspace.
 *
 * Boundary rule: the command runs inside the bubblewrap sandbox (see bubblewrap.ts) unless the
 * operator explicitly allowed an unconfined shell (see shell-mode.ts). Its output is bounded, and
 * a timeout or the call's abort signal kills the whole process tree: bwrap is started as its own
 * process group leader and killed with SIGKILL, which tears down the sandbox's PID namespace and
 * everything in it; nothing the command started outlives the call.
 */
import { type ChildProcess, spawn } from "node:child_process";
import type { ToolContext, ToolDefinition, ToolOutput } from "../model/tools.js";
import { ToolError } from "../model/tools.js";
import { argumentsSchema, textArgument } from "./argument-schema.js";
import { commandEnvironment, sandboxArguments } from "./bubblewrap.js";
import { type HiddenPaths, hiddenPathCovering, NO_HIDDEN_PATHS } from "./hidden-paths.js";
import { hostNetworkView } from "./network-helper.js";
import { BoundedOutput, OUTPUT_LIMIT_BYTES } from "./output-limit.js";
import { spawnSandbox } from "./sandbox-process.js";
import type { OfferedShell } from "./shell-mode.js";
import { errorMessage } from "./system-error.js";
import { toolKind } from "./tool-kind.js";
import { realWorkspace } from "./workspace-path.js";

/** Timeout when the call gives none. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 120_000;
/** Longest timeout a call may ask for. */
export const MAX_COMMAND_TIMEOUT_MS = 600_000;
/** How long to wait for the output pipes to close once the command has exited. */
const PIPE_DRAIN_GRACE_MS = 2_000;

/** Arguments of `run_command`. */
export interface RunCommandInput {
  command: string;
  timeout_ms?: number;
}

const inputSchema = argumentsSchema(
  {
    command: textArgument("Shell command, run as `sh -c command`."),
    timeout_ms: {
      type: "integer",
      minimum: 1,
      maximum: MAX_COMMAND_TIMEOUT_MS,
      description: `Kill the command after this many milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}).`,
    },
  },
  ["command"],
);

function describe(shell: OfferedShell): string {
  const common =
    "Run a shell command (`sh -c`) with the workspace as the working directory and HOME. " +
    "Returns 'exit code: N' followed by stdout and stderr interleaved " +
    `(at most ${OUTPUT_LIMIT_BYTES / 1024} KiB; the middle of longer output is cut). ` +
    "stdin is empty; processes left in the background are killed when the command ends.";
  switch (shell.mode) {
    case "sandboxed":
      return (
        `${common} Sandboxed: only the workspace and a private, empty /tmp are writable, the rest of ` +
        "the filesystem is read-only, /run is empty, the daemon's private files are hidden, and there is " +
        (shell.network?.kind === "outbound"
          ? "outbound network access (but no route to this machine's own addresses or services)"
          : "no network access") +
        (shell.socketFilter.kind === "filter"
          ? " and no local IPC: creating a Unix socket fails (socketpair works)."
          : ".")
      );
    case "unconfined":
      return common;
    default: {
      const unreachable: never = shell;
      return unreachable;
    }
  }
}

const runCommandKind = toolKind<RunCommandInput>("run_command", inputSchema);

/**
 * The `run_command` tool for `workspace`, running commands the way `shell` says; a sandboxed
 * command cannot see the `hidden` paths.
 */
export function runCommandTool(
  workspace: string,
  shell: OfferedShell,
  hidden: HiddenPaths = NO_HIDDEN_PATHS,
): ToolDefinition {
  return runCommandKind(describe(shell), (input, context) =>
    runCommand(workspace, shell, hidden, input, context),
  );
}

/** How a command ended. */
type CommandEnd =
  | { kind: "exited"; code: number }
  | { kind: "signalled"; signal: string }
  | { kind: "timed_out" }
  | { kind: "cancelled" };

async function runCommand(
  workspace: string,
  shell: OfferedShell,
  hidden: HiddenPaths,
  input: RunCommandInput,
  context: ToolContext,
): Promise<ToolOutput> {
  if (context.signal.aborted) {
    throw new ToolError("execution_failed", "run_command: cancelled before the command started");
  }
  const realRoot = await realWorkspace(workspace);
  const timeoutMs = input.timeout_ms ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const { child, ready } =
    shell.mode === "sandboxed"
      ? spawnSandboxed(shell, realRoot, hidden, input.command)
      : { child: spawnUnconfined(realRoot, input.command), ready: Promise.resolve() };
  const output = new BoundedOutput();
  child.stdout?.on("data", (chunk: Buffer) => output.append(chunk));
  child.stderr?.on("data", (chunk: Buffer) => output.append(chunk));
  try {
    await ready;
  } catch (error) {
    // The sandbox is killed already; its exit is not the command's, but what bwrap said may tell why.
    const said = output.totalBytes === 0 ? "" : `; the sandbox wrote: ${output.render().trim()}`;
    throw new ToolError(
      "execution_failed",
      `run_command: cannot start the command: ${errorMessage(error)}${said}`,
    );
  }

  let stoppedBy: "timed_out" | "cancelled" | undefined;
  const stop = (reason: "timed_out" | "cancelled") => {
    stoppedBy ??= reason;
    killProcessGroup(child);
  };
  const timer = setTimeout(() => stop("timed_out"), timeoutMs);
  const onAbort = () => stop("cancelled");
  context.signal.addEventListener("abort", onAbort, { once: true });
  let end: CommandEnd;
  try {
    const exit = await waitForExit(child, shell);
    end =
      stoppedBy !== undefined
        ? { kind: stoppedBy }
        : exit.code !== null
          ? { kind: "exited", code: exit.code }
          : { kind: "signalled", signal: exit.signal ?? "unknown" };
  } finally {
    clearTimeout(timer);
    context.signal.removeEventListener("abort", onAbort);
  }
  return formatResult(end, output, timeoutMs);
}

function spawnSandboxed(
  shell: Extract<OfferedShell, { mode: "sandboxed" }>,
  realRoot: string,
  hidden: HiddenPaths,
  command: string,
): { child: ChildProcess; ready: Promise<void> } {
  const covering = hiddenPathCovering(hidden, realRoot);
  if (covering !== undefined) {
    // The sandbox would cover the workspace itself; builtinTools refuses such a workspace up front.
    throw new ToolError(
      "execution_failed",
      `run_command: the workspace ${realRoot} lies inside ${covering}, which is hidden from the agent`,
    );
  }
  const network =
    shell.network?.kind === "outbound" ? { helper: shell.network.helper, view: hostNetworkView() } : null;
  return spawnSandbox({
    bwrapPath: shell.bwrapPath,
    args: sandboxArguments(realRoot, command, hidden, shell.socketFilter, network?.view ?? null),
    env: commandEnvironment(realRoot),
    stdin: "ignore",
    filter: shell.socketFilter,
    network,
  });
}

function spawnUnconfined(realRoot: string, command: string): ChildProcess {
  return spawn("/bin/sh", ["-c", command], {
    cwd: realRoot,
    env: commandEnvironment(realRoot),
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
}

function formatResult(end: CommandEnd, output: BoundedOutput, timeoutMs: number): ToolOutput {
  const text = output.totalBytes === 0 ? "(no output)" : output.render();
  switch (end.kind) {
    case "exited":
      return `exit code: ${end.code}\n${text}`;
    case "signalled":
      return `killed by signal ${end.signal}\n${text}`;
    case "timed_out":
      return {
        output: `timed out after ${timeoutMs} ms; the command and all its processes were killed\n${text}`,
        is_error: true,
      };
    case "cancelled":
      return { output: `cancelled; the command and all its processes were killed\n${text}`, is_error: true };
    default: {
      const unreachable: never = end;
      return unreachable;
    }
  }
}

/** SIGKILLs the child's whole process group (the child leads it: it was spawned detached). */
function killProcessGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

interface Exit {
  code: number | null;
  signal: string | null;
}

/**
 * Resolves once the child has exited and its pipes are drained. An unconfined shell's leftover
 * background processes are killed with its process group; a process that escaped the group and
 * still holds the pipes is cut off after a short grace period instead of hanging the call.
 */
function waitForExit(child: ChildProcess, shell: OfferedShell): Promise<Exit> {
  return new Promise<Exit>((resolve, reject) => {
    let exit: Exit | undefined;
    let grace: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(grace);
      if (exit !== undefined) resolve(exit);
    };
    child.once("error", (error) => {
      clearTimeout(grace);
      reject(
        new ToolError("execution_failed", `run_command: cannot start the command: ${errorMessage(error)}`),
      );
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      // In the sandbox the PID namespace is already gone with bwrap; outside it, reap the group.
      if (shell.mode === "unconfined") killProcessGroup(child);
      grace = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, PIPE_DRAIN_GRACE_MS);
    });
    child.once("close", finish);
  });
}
