/**
 * Auto-start: make sure a daemon serves a home, starting `skein daemon run` in the background
 * when none answers.
 *
 * Boundary rule: process management through the daemon's public surface only (its command,
 * daemon.json and `GET /server`). Concurrent starters need no coordination here: every starter
 * that finds no daemon spawns one, the home lock lets exactly one of them run (the others exit
 * non-zero at once), and every starter waits until daemon.json names a daemon that answers
 * ready. A starter whose child lost and that still sees no daemon after a while spawns again,
 * which also covers a daemon that was draining when we looked.
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { ServerInfo } from "../api/server.js";
import { type DiscoveryInfo, readDiscoveryFile } from "../home/discovery-file.js";
import { homeLockedExitCode } from "../home/exit-codes.js";
import { homePaths } from "../home/home.js";
import { endpointOf } from "./daemon-endpoint.js";
import { clientAgents, exchange } from "./http-exchange.js";

/** A daemon that answered `GET /server` with state ready. */
export interface LiveDaemon {
  info: DiscoveryInfo;
  server: ServerInfo;
}

export interface EnsureDaemonOptions {
  home: string;
  /** Environment of a started daemon (API key variables travel this way); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
  /** The command that runs a daemon in the foreground; default `node bin/skein.js daemon run`. */
  command?: { executable: string; args: string[] };
}

/** The daemon could not be started; `logTail` holds the end of daemon.log. */
export class DaemonStartError extends Error {
  constructor(
    readonly home: string,
    reason: string,
    readonly logTail: string,
  ) {
    super(`could not start a Skein daemon for ${home}: ${reason}${logTail === "" ? "" : `\n${logTail}`}`);
    this.name = "DaemonStartError";
  }
}

/** The daemon serving `home` if one answers ready now, else null. */
export async function probeDaemon(home: string, timeoutMs = 2_000): Promise<LiveDaemon | null> {
  let info: DiscoveryInfo | null;
  try {
    info = readDiscoveryFile(home);
  } catch {
    return null;
  }
  if (info === null) return null;
  const agents = clientAgents(false);
  try {
    const answer = await exchange(endpointOf(info), agents, {
      method: "GET",
      path: "/server",
      timeoutMs,
    });
    if (answer.status !== 200) return null;
    const server = JSON.parse(answer.body) as ServerInfo;
    return server.state === "ready" ? { info, server } : null;
  } catch {
    return null;
  } finally {
    for (const agent of Object.values(agents)) agent.destroy();
  }
}

/** The running daemon of `home`, started in the background when there is none. */
export async function ensureDaemon(options: EnsureDaemonOptions): Promise<LiveDaemon & { started: boolean }> {
  const { home } = options;
  const existing = await probeDaemon(home);
  if (existing !== null) return { ...existing, started: false };

  mkdirSync(home, { recursive: true, mode: 0o700 });
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const children = new Set<number>();
  let child = spawnDaemon(options);
  if (child.pid !== undefined) children.add(child.pid);
  let lastSpawn = Date.now();
  for (;;) {
    await sleep(25);
    const live = await probeDaemon(home, 1_000);
    if (live !== null) return { ...live, started: children.has(live.info.pid) };
    if (Date.now() > deadline) {
      throw new DaemonStartError(home, "no daemon became ready in time", logTail(home));
    }
    if (child.spawnError !== null) throw new DaemonStartError(home, child.spawnError.message, "");
    // A child that lost the race for the home lock exits with its own code; the winner's
    // daemon.json is then awaited like ours would be.
    if (child.exited && child.code !== 0 && child.code !== homeLockedExitCode) {
      throw new DaemonStartError(home, `the daemon exited with code ${child.code}`, logTail(home));
    }
    // Our child lost the home lock; if the winner does not show up soon (it may have been a
    // daemon that was draining), try again.
    if (child.exited && Date.now() - lastSpawn > 1_500) {
      child = spawnDaemon(options);
      if (child.pid !== undefined) children.add(child.pid);
      lastSpawn = Date.now();
    }
  }
}

interface SpawnedDaemon {
  pid: number | undefined;
  exited: boolean;
  code: number | null;
  spawnError: Error | null;
}

function spawnDaemon(options: EnsureDaemonOptions): SpawnedDaemon {
  const command = options.command ?? { executable: process.execPath, args: [defaultBin(), "daemon", "run"] };
  const log = openSync(homePaths(options.home).log, "a", 0o600);
  const state: SpawnedDaemon = {
    pid: undefined,
    exited: false,
    code: null,
    spawnError: null,
  };
  try {
    const child = spawn(command.executable, command.args, {
      detached: true,
      stdio: ["ignore", log, log],
      cwd: options.home,
      env: { ...(options.env ?? process.env), SKEIN_HOME: options.home },
    });
    state.pid = child.pid;
    child.once("error", (error) => {
      state.spawnError = error;
      state.exited = true;
    });
    child.once("exit", (code) => {
      state.exited = true;
      state.code = code;
    });
    child.unref();
  } finally {
    closeSync(log);
  }
  return state;
}

/** bin/skein.js of this package (src/client and dist/client are two levels below the root). */
function defaultBin(): string {
  return join(dirname(fileURLToPath(import.meta.url)), "../../bin/skein.js");
}

/** The last lines of daemon.log (for start failures). */
function logTail(home: string, lines = 15): string {
  try {
    const text = readFileSync(homePaths(home).log, "utf8").trimEnd();
    return text.split("\n").slice(-lines).join("\n");
  } catch {
    return "";
  }
}
