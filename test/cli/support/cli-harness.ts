/**
 * Running the real `skein` binary (`node bin/skein.js`, built into dist/) as child processes
 * on a temporary home, the way a person or a script would.
 *
 * Boundary rule: test support only; it knows the CLI by its arguments, environment, output and
 * exit code, and the daemon by its home files.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { skeinBin } from "../../e2e/support/daemon-harness.js";

export { skeinBin };

/** What a finished `skein` process left. */
export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A running `skein` process whose output is collected as it comes. */
export interface LiveCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when the process has exited. */
  exited: Promise<CliResult>;
}

/** A temporary home and workspace for CLI runs (no daemon unless a test starts one). */
export class CliSandbox {
  readonly root: string;
  readonly home: string;
  readonly workspace: string;
  readonly env: Record<string, string>;

  constructor(options: { home?: string; root?: string; env?: Record<string, string> } = {}) {
    this.root = options.root ?? mkdtempSync(join(tmpdir(), "skein-cli-"));
    this.home = options.home ?? join(this.root, "home");
    this.workspace = join(this.root, "workspace");
    mkdirSync(this.workspace, { recursive: true });
    this.env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: this.root,
      SKEIN_HOME: this.home,
      NO_COLOR: "1",
      ...options.env,
    };
  }

  /** Start `skein args…` in the workspace (or in `cwd`). */
  spawn(
    args: readonly string[],
    options: { env?: Record<string, string>; input?: string; cwd?: string } = {},
  ): LiveCli {
    const child = spawn(process.execPath, [skeinBin, ...args], {
      cwd: options.cwd ?? this.workspace,
      env: { ...this.env, ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(options.input ?? "");
    const exited = new Promise<CliResult>((resolve) => {
      child.once("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
    });
    return { child, stdout: () => stdout, stderr: () => stderr, exited };
  }

  /** Run `skein args…` to completion (killed after `timeoutMs`). */
  async run(
    args: readonly string[],
    options: { env?: Record<string, string>; input?: string; timeoutMs?: number; cwd?: string } = {},
  ): Promise<CliResult> {
    const live = this.spawn(args, options);
    const timer = setTimeout(() => live.child.kill("SIGKILL"), options.timeoutMs ?? 15_000);
    try {
      return await live.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Write config.json with these profiles; the first is active. */
  writeProviders(providers: Record<string, Record<string, unknown>>): void {
    mkdirSync(this.home, { recursive: true, mode: 0o700 });
    const names = Object.keys(providers);
    writeFileSync(
      join(this.home, "config.json"),
      JSON.stringify({ ...(names[0] === undefined ? {} : { active: names[0] }), providers }),
      { mode: 0o600 },
    );
  }

  /** daemon.json of the home, or null. */
  daemonInfo(): { pid: number; port: number; token: string } | null {
    const path = join(this.home, "daemon.json");
    if (!existsSync(path)) return null;
    return JSON.parse(readFileSync(path, "utf8")) as { pid: number; port: number; token: string };
  }

  /** Pids of live `skein daemon run` processes whose SKEIN_HOME is this home. */
  daemonPids(): number[] {
    const pids: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
        if (!cmdline.includes("daemon") || !cmdline.includes("run")) continue;
        const environ = readFileSync(`/proc/${entry}/environ`, "utf8").split("\0");
        if (environ.includes(`SKEIN_HOME=${this.home}`)) pids.push(Number(entry));
      } catch {
        // gone, or not ours to read
      }
    }
    return pids;
  }

  /** Stop every daemon of this home (gracefully, then by force) and remove the sandbox. */
  async cleanup(): Promise<void> {
    for (const pid of this.daemonPids()) signal(pid, "SIGTERM");
    const deadline = Date.now() + 10_000;
    while (this.daemonPids().length > 0 && Date.now() < deadline) await sleep(50);
    for (const pid of this.daemonPids()) signal(pid, "SIGKILL");
    rmSync(this.root, { recursive: true, force: true });
  }
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Poll until `check` is truthy (or fail after `timeoutMs` with `describe()` in the message). */
export async function eventually<T>(
  check: () => T | null | undefined | false,
  describe: () => string,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== null && value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms; ${describe()}`);
    await sleep(25);
  }
}

/** How often `needle` occurs in `text`. */
export function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** A chat_completions profile for a fake provider. */
export function fakeProfile(baseUrl: string): Record<string, unknown> {
  return { protocol: "chat_completions", baseUrl: `${baseUrl}/v1`, model: "fake-model", apiKey: "fake-key" };
}
