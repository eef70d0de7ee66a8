/**
 * The stdio transport of a local MCP server: the server runs as a child process in its own
 * process group and speaks newline-delimited JSON-RPC on stdin/stdout (the SDK's framing).
 *
 * Boundary rule: owns one child process. Unlike the SDK's own stdio transport it starts the
 * server as a process-group leader, so stopping it (or its crash) ends everything the server
 * started too (`npx` and the node process under it, a shell and its children); it keeps the
 * server's last stderr and any line on stdout that is not JSON-RPC, so a failure can say why;
 * and it gives the server exactly the environment it is handed, nothing of the daemon's.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { deserializeMessage, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { programSandboxArguments } from "../tools/bubblewrap.js";
import { hostNetworkView } from "../tools/network-helper.js";
import { spawnSandbox } from "../tools/sandbox-process.js";
import type { ServerConfinement } from "./server-sandbox.js";

/** What to run. `env` is the whole environment of the child. */
export interface StdioLaunch {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd: string | null;
  /** Run under bwrap with these confines; null runs the command as it is. */
  confinement: ServerConfinement;
}

/** How the server process ended, once it has. */
export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const stderrKeptBytes = 4096;
/** The longest line (one JSON-RPC message) the server may write; the SDK's own limit. */
const maxLineBytes = 10 * 1024 * 1024;
/** After stdin is closed, how long a server gets to exit before SIGTERM, then before SIGKILL. */
const closeGraceMs = 500;
const termGraceMs = 1500;
/** How long after the process exits its output streams may take to close. */
const streamDrainMs = 200;

export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  readonly #launch: StdioLaunch;
  #pending: Buffer = Buffer.alloc(0);
  #child: ChildProcess | null = null;
  #exit: ProcessExit | null = null;
  #exited: Promise<void> | null = null;
  #stderr = "";
  #badOutput: string | null = null;
  #closed = false;

  constructor(launch: StdioLaunch) {
    this.#launch = launch;
  }

  /** The server's process id (its process group id too), once started. */
  get pid(): number | null {
    return this.#child?.pid ?? null;
  }

  /** How the process ended, or null while it runs (or before it started). */
  get exit(): ProcessExit | null {
    return this.#exit;
  }

  /** The end of what the server wrote to stderr (at most 4 KiB). */
  get stderrTail(): string {
    return this.#stderr;
  }

  /** The first line the server wrote to stdout that was not a JSON-RPC message, if any. */
  get badOutput(): string | null {
    return this.#badOutput;
  }

  /** Wait up to `ms` for the process to exit; true when it has (or never started). */
  async exitWithin(ms: number): Promise<boolean> {
    if (this.#exit !== null || this.#exited === null) return true;
    return settlesWithin(this.#exited, ms);
  }

  start(): Promise<void> {
    if (this.#child !== null) throw new Error("the server process was already started");
    const launch = this.#launch;
    return new Promise((resolve, reject) => {
      const { child, ready } = spawnServer(launch);
      this.#child = child;
      this.#exited = new Promise((done) => {
        const ended = () => {
          done();
          this.#finish();
        };
        child.once("exit", (code, signal) => {
          this.#exit = { code, signal };
          // Whatever the server left behind in its group goes with it.
          signalGroup(child.pid, "SIGKILL");
          // "close" follows once stdout and stderr are drained (so the last stderr is kept);
          // a descendant that left the group could hold them open, so do not wait for long.
          setTimeout(ended, streamDrainMs).unref();
        });
        child.once("close", ended);
      });
      child.once("error", (error) => {
        // A command that cannot be run: no "exit" follows.
        this.#exit ??= { code: null, signal: null };
        reject(error);
        this.#finish();
      });
      // With a network, the server runs only once it is set up; a failure has killed the sandbox.
      child.once("spawn", () => ready.then(resolve, reject));
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
      child.stderr?.on("data", (chunk: Buffer) => {
        this.#stderr = (this.#stderr + chunk.toString("utf8")).slice(-stderrKeptBytes);
      });
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (stdin === null || stdin === undefined || this.#exit !== null || this.#closed) {
      return Promise.reject(new Error("the server process is not running"));
    }
    // Resolve once the data is queued (as the SDK's transport does); wait only when the pipe is full.
    if (stdin.write(serializeMessage(message))) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        stdin.off("drain", settle);
        stdin.off("error", settle);
        if (error === undefined) resolve();
        else reject(error);
      };
      stdin.once("drain", settle);
      stdin.once("error", settle);
    });
  }

  /** Close stdin, then SIGTERM and finally SIGKILL the server's process group; resolves when it is gone. */
  async close(): Promise<void> {
    const child = this.#child;
    if (child === null || this.#exited === null) {
      this.#finish();
      return;
    }
    if (this.#exit === null) {
      child.stdin?.end();
      if (!(await settlesWithin(this.#exited, closeGraceMs))) {
        signalGroup(child.pid, "SIGTERM");
        if (!(await settlesWithin(this.#exited, termGraceMs))) signalGroup(child.pid, "SIGKILL");
      }
      await this.#exited;
    }
    signalGroup(child.pid, "SIGKILL");
    this.#finish();
  }

  #read(chunk: Buffer): void {
    let buffer = this.#pending.length === 0 ? chunk : Buffer.concat([this.#pending, chunk]);
    for (let end = buffer.indexOf(10); end >= 0; end = buffer.indexOf(10)) {
      const line = buffer.toString("utf8", 0, end).replace(/\r$/, "");
      buffer = buffer.subarray(end + 1);
      if (line.trim() === "") continue;
      let message: JSONRPCMessage;
      try {
        message = deserializeMessage(line);
      } catch {
        this.#badOutput ??= line.slice(0, 200);
        this.onerror?.(
          new Error(`the server wrote a line that is not JSON-RPC on stdout: ${line.slice(0, 200)}`),
        );
        continue;
      }
      this.onmessage?.(message);
    }
    if (buffer.length > maxLineBytes) {
      this.#badOutput ??= `a line longer than ${maxLineBytes} bytes`;
      this.onerror?.(new Error(`the server wrote a line longer than ${maxLineBytes} bytes on stdout`));
      buffer = Buffer.alloc(0);
    }
    this.#pending = buffer;
  }

  #finish(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/**
 * Start the server process, as its own process group's leader, confined when asked; `ready`
 * resolves once a confined server's network is set up (at once otherwise).
 */
function spawnServer(launch: StdioLaunch): { child: ChildProcess; ready: Promise<void> } {
  const confinement = launch.confinement;
  if (confinement === null) {
    const child = spawn(launch.command, [...launch.args], {
      cwd: launch.cwd ?? undefined,
      env: launch.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    return { child, ready: Promise.resolve() };
  }
  const program = confinement.program;
  const network = program.network === null ? null : { helper: program.network, view: hostNetworkView() };
  return spawnSandbox({
    bwrapPath: confinement.bwrapPath,
    args: programSandboxArguments(program, network?.view ?? null, launch.command, launch.args),
    env: launch.env,
    stdin: "pipe",
    filter: program.filter,
    network,
  });
}

/** Send `signal` to the whole process group led by `pid` (no-op when it is gone). */
function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: the group is gone already.
  }
}

async function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((done) => {
    timer = setTimeout(() => done(false), ms);
  });
  const settled = await Promise.race([promise.then(() => true), timeout]);
  clearTimeout(timer);
  return settled;
}
