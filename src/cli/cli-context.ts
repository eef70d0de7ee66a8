/**
 * What every command gets: the home, the environment, the working directory, the terminal,
 * and a way to reach the daemon (started in the background when none runs, unless
 * SKEIN_NO_AUTOSTART=1).
 *
 * Boundary rule: per-invocation wiring only; commands receive a context and never read
 * process globals themselves, so they stay callable from tests and other programs.
 */

import type { ServerInfo } from "../api/server.js";
import { DaemonApiError, DaemonUnreachableError } from "../client/api-errors.js";
import { DaemonClient } from "../client/daemon-client.js";
import { ensureDaemon } from "../client/ensure-daemon.js";
import { homePaths } from "../home/home.js";
import { processTerminal, type Terminal } from "./render/terminal.js";

export interface CliContext {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  terminal: Terminal;
  stdin: NodeJS.ReadStream;
}

/** The context of this process, with `home` already resolved. */
export function processContext(home: string): CliContext {
  return {
    home,
    env: process.env,
    cwd: process.cwd(),
    terminal: processTerminal(process.env),
    stdin: process.stdin,
  };
}

/** A client of the home's daemon and what its `GET /server` said when it was reached. */
export interface Connected {
  client: DaemonClient;
  /** The daemon's answer (its version, its shell…): commands use it instead of asking again. */
  server: ServerInfo;
}

/**
 * A client of the home's daemon, starting one in the background first if needed. The check is
 * one `GET /server` on the client's own keep-alive connection, which the command's requests
 * then reuse.
 */
export async function connect(
  context: CliContext,
  options: { autoStart?: boolean } = {},
): Promise<DaemonClient> {
  return (await connectWithServer(context, options)).client;
}

/** `connect`, also giving the `GET /server` answer that the check got. */
export async function connectWithServer(
  context: CliContext,
  options: { autoStart?: boolean } = {},
): Promise<Connected> {
  const { autoStart, start, clientOptions } = daemonAccess(context, options);
  const client = new DaemonClient(clientOptions);
  let failure: unknown;
  try {
    const server = await client.server(2_000);
    if (server.state === "ready") return { client, server };
    failure = new DaemonUnreachableError(context.home, "the daemon is shutting down");
  } catch (error) {
    failure = error;
  }
  client.close();
  if (!autoStart) throw failure;
  // The daemon started (or found) answered its own `GET /server`: that answer stands for it.
  const server = await start();
  return { client: new DaemonClient(clientOptions), server };
}

/**
 * A client of the home's daemon whose first request is `first`, sent without asking `GET
 * /server` beforehand: its answer tells the same. When no daemon answers it (or the one that
 * does is shutting down: refused before any handler ran) a daemon is started as `connect`
 * would, and `first` is sent once more; without auto-start that is the error.
 */
export async function connectFor<T>(
  context: CliContext,
  first: (client: DaemonClient) => Promise<T>,
  options: { autoStart?: boolean } = {},
): Promise<{ client: DaemonClient; answer: T }> {
  const { autoStart, start, clientOptions } = daemonAccess(context, options);
  const client = new DaemonClient(clientOptions);
  try {
    return { client, answer: await first(client) };
  } catch (error) {
    client.close();
    const unreachable = asUnreachable(error, context.home);
    if (unreachable === null) throw error;
    if (!autoStart) throw unreachable;
  }
  await start();
  const started = new DaemonClient(clientOptions);
  try {
    return { client: started, answer: await first(started) };
  } catch (error) {
    started.close();
    throw error;
  }
}

/** The error as a daemon that cannot take the request (none answers, or it is draining), else null. */
function asUnreachable(error: unknown, home: string): DaemonUnreachableError | null {
  if (error instanceof DaemonUnreachableError) return error;
  if (error instanceof DaemonApiError && error.status === 503 && error.code === "daemon_unavailable") {
    return new DaemonUnreachableError(home, "the daemon is shutting down", { cause: error });
  }
  return null;
}

/** Whether a command may start a daemon, how, and the client options that go with it. */
function daemonAccess(context: CliContext, options: { autoStart?: boolean }) {
  const autoStart = (options.autoStart ?? true) && context.env.SKEIN_NO_AUTOSTART !== "1";
  const start = async (): Promise<ServerInfo> => {
    const daemon = await ensureDaemon({ home: context.home, env: context.env });
    if (daemon.started) {
      context.terminal.err.stream.write(
        context.terminal.err.paint.dim(
          `started the Skein daemon (pid ${daemon.info.pid}; log: ${homePaths(context.home).log})\n`,
        ),
      );
    }
    return daemon.server;
  };
  // With auto-start, a daemon that crashes under a running command is started again.
  const clientOptions = { home: context.home, ...(autoStart ? { startDaemon: start } : {}) };
  return { autoStart, start, clientOptions };
}
