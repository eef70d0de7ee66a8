/**
 * `skein daemon start|stop|status|logs` (`run` is wired in main.ts: it loads the daemon itself).
 *
 * Boundary rule: the daemon is managed through its public surface only: the start command,
 * daemon.json, `GET /server`, `POST /server/shutdown` and daemon.log.
 */
import { createReadStream, existsSync, readFileSync, statSync, watch } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import type { ClusterInfo } from "../../api/cluster.js";
import type { SessionSummary } from "../../api/session-snapshot.js";
import { DaemonClient } from "../../client/daemon-client.js";
import { endpointOf } from "../../client/daemon-endpoint.js";
import { ensureDaemon, probeDaemon } from "../../client/ensure-daemon.js";
import { readDiscoveryFile } from "../../home/discovery-file.js";
import { homePaths } from "../../home/home.js";
import { processAlive } from "../../model/process-alive.js";
import type { CliContext } from "../cli-context.js";
import { CliError } from "../cli-error.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { formatLogLine } from "../render/log-line.js";
import { writeLine } from "../render/terminal.js";

/** `skein daemon start`: start in the background unless one runs already. */
export async function startDaemon(context: CliContext): Promise<ExitCode> {
  const daemon = await ensureDaemon({ home: context.home, env: context.env });
  const { pid, port } = daemon.info;
  const out = context.terminal.out;
  writeLine(
    out,
    daemon.started
      ? `started the Skein daemon (pid ${pid}, port ${port}, home ${context.home}; log ${homePaths(context.home).log})`
      : `the Skein daemon is already running (pid ${pid}, port ${port}, home ${context.home})`,
  );
  return exitCodes.ok;
}

/**
 * `skein daemon stop`: drain (running turns get `options.timeout` seconds) and wait for the
 * process to exit, saying which turns were running, which of them finished in time and which were cut.
 */
export async function stopDaemon(context: CliContext, options: { timeout: number }): Promise<ExitCode> {
  const timeoutMs = options.timeout * 1000;
  const out = context.terminal.out;
  const live = await probeDaemon(context.home);
  if (live === null) {
    writeLine(out, `no Skein daemon is running for ${context.home}`);
    return exitCodes.ok;
  }
  const client = new DaemonClient({
    home: context.home,
    endpoint: endpointOf(live.info),
  });
  const running = new Map<string, SessionSummary>();
  const finished = new Set<string>();
  const following = new AbortController();
  const watchers: Promise<void>[] = [];
  try {
    const sessions = await client.listSessions().catch(() => []);
    for (const session of sessions) {
      if (session.status.phase === "running") running.set(session.id, session);
    }
    // A turn that waits for a person is not waited for: it waits again after the next start.
    for (const session of sessions.filter((each) => each.status.phase === "waiting")) {
      writeLine(out, `waits for an approval (kept waiting for the next start): ${sessionLabel(session)}`);
    }
    if (running.size > 0) {
      writeLine(
        out,
        `${running.size} running turn${running.size === 1 ? "" : "s"}; waiting up to ${options.timeout} s for ${running.size === 1 ? "it" : "them"} to finish:`,
      );
      for (const session of running.values()) writeLine(out, `  ${sessionLabel(session)}`);
    }
    const positioned = [...running.keys()].map(
      (id) =>
        new Promise<void>((resolve) => {
          watchers.push(watchTurn(client, id, finished, following.signal, resolve));
        }),
    );
    // Unreferenced: a pending wait must not keep this command alive after the daemon is gone.
    await Promise.race([Promise.all(positioned), sleep(5_000, undefined, { ref: false })]);
    await client.shutdown(live.server.instance_id, timeoutMs);
    const shutdownAt = Date.now();
    const deadline = Date.now() + timeoutMs + 15_000;
    while (processAlive(live.info.pid)) {
      if (Date.now() > deadline) {
        throw new CliError(
          `the daemon (pid ${live.info.pid}) is still running after the shutdown request`,
          exitCodes.error,
        );
      }
      await sleep(25);
    }
    // The daemon waits for every running turn up to the timeout: gone sooner, all of them ended
    // (the end of the last one may not have reached its stream before the daemon closed it).
    if (Date.now() - shutdownAt < timeoutMs) for (const id of running.keys()) finished.add(id);
  } finally {
    following.abort();
    await Promise.all(watchers);
    client.close();
  }
  for (const id of finished) writeLine(out, `finished: ${sessionLabel(running.get(id)!)}`);
  for (const [id, session] of running) {
    if (finished.has(id)) continue;
    writeLine(
      out,
      `cut at the ${options.timeout} s limit: ${sessionLabel(session)} (its saved steps are kept; \`skein show ${id.slice(0, 13)}\` shows where it stopped)`,
    );
  }
  writeLine(out, `stopped the Skein daemon (pid ${live.info.pid})`);
  return exitCodes.ok;
}

/**
 * Follow a running session until its turn ends (it goes into `finished`) or the daemon goes.
 * Resolves `positioned` once the stream is attached, so no end can be missed after it.
 */
async function watchTurn(
  client: DaemonClient,
  id: string,
  finished: Set<string>,
  signal: AbortSignal,
  positioned: () => void,
): Promise<void> {
  try {
    for await (const item of client.follow(id, { tail: 0, signal, reconnectForMs: 0 })) {
      if (item.kind !== "batch") return;
      positioned();
      const batch = item.batch;
      const idle =
        (batch.reset !== null && batch.reset.snapshot.status.phase === "idle") ||
        batch.events.some(
          (event) =>
            event.type === "turn_completed" || (event.type === "status" && event.data.phase === "idle"),
        );
      if (idle) {
        finished.add(id);
        return;
      }
    }
  } catch {
    // the daemon closed the stream: the turn did not end in time
  } finally {
    positioned();
  }
}

function sessionLabel(session: SessionSummary): string {
  const preview = session.name ?? session.preview.text.replace(/\s+/g, " ").slice(0, 50);
  return `${session.id}  ${preview}`;
}

/** `skein daemon status`: exit 0 when a daemon answers, 3 when none does. */
export async function daemonStatus(context: CliContext, options: { json?: boolean }): Promise<ExitCode> {
  const out = context.terminal.out;
  const live = await probeDaemon(context.home);
  if (options.json === true) {
    writeLine(
      out,
      JSON.stringify(
        live === null
          ? { running: false, home: context.home }
          : { running: true, home: context.home, pid: live.info.pid, port: live.info.port, ...live.server },
      ),
    );
    return live === null ? exitCodes.unreachable : exitCodes.ok;
  }
  if (live === null) {
    let stale = "";
    try {
      const info = readDiscoveryFile(context.home);
      if (info !== null)
        stale = ` (daemon.json names pid ${info.pid}, which ${processAlive(info.pid) ? "does not answer" : "is gone"})`;
    } catch {
      stale = " (daemon.json is unreadable)";
    }
    writeLine(out, `not running: no Skein daemon answers for ${context.home}${stale}`);
    return exitCodes.unreachable;
  }
  const { info, server } = live;
  writeLine(
    out,
    `running: pid ${info.pid}, port ${info.port}, version ${server.version}, protocol ${server.protocol}, state ${server.state}`,
  );
  writeLine(out, `home ${context.home}; instance ${server.instance_id}; log ${homePaths(context.home).log}`);
  const cluster = await clusterOf(context, live.info).catch(() => null);
  if (cluster?.clustered === true) {
    writeLine(
      out,
      `cluster: ${cluster.nodes.filter((node) => node.live).length} live node(s), lease ${cluster.lease_seconds} s`,
    );
    for (const node of cluster.nodes) {
      writeLine(
        out,
        `  ${node.self ? "*" : " "} ${node.id} ${node.url} pid ${node.pid} ${node.live ? "live" : "down"}, ${node.sessions_owned} session(s) owned, heartbeat ${node.heartbeat_age_ms} ms ago${node.key_trusted ? "" : `, its head key ${node.key_id ?? "(unreadable)"} is NOT trusted here`}${node.self || node.profiles_match ? "" : ", its provider profiles differ from this node's"}`,
      );
      if (node.last_error !== null)
        writeLine(out, `      last error (${node.last_error.at}): ${node.last_error.message}`);
    }
  }
  return exitCodes.ok;
}

/** The daemon's `GET /cluster`. */
async function clusterOf(context: CliContext, info: Parameters<typeof endpointOf>[0]): Promise<ClusterInfo> {
  const client = new DaemonClient({ home: context.home, endpoint: endpointOf(info) });
  try {
    return await client.cluster();
  } finally {
    client.close();
  }
}

/** `skein daemon logs [-n N] [-f]`. */
export async function daemonLogs(
  context: CliContext,
  options: { lines: number; follow?: boolean; json?: boolean },
): Promise<ExitCode> {
  const path = homePaths(context.home).log;
  const out = context.terminal.out;
  const show = (line: string): void => {
    out.stream.write(`${options.json === true ? line : formatLogLine(line, out.paint)}\n`);
  };
  if (!existsSync(path)) {
    if (options.follow !== true) {
      writeLine(context.terminal.err, `no daemon log yet at ${path}`);
      return exitCodes.ok;
    }
  } else {
    const lines = readFileSync(path, "utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    for (const line of lines.slice(-options.lines)) show(line);
  }
  if (options.follow !== true) return exitCodes.ok;
  let offset = existsSync(path) ? statSync(path).size : 0;
  let partial = "";
  await new Promise<void>((resolve) => {
    const pump = (): void => {
      if (!existsSync(path)) return;
      const size = statSync(path).size;
      if (size < offset) offset = 0;
      if (size === offset) return;
      const start = offset;
      offset = size;
      let text = partial;
      createReadStream(path, { start, end: size - 1, encoding: "utf8" })
        .on("data", (chunk) => {
          text += chunk;
        })
        .on("end", () => {
          const lines = text.split("\n");
          partial = lines.pop() ?? "";
          for (const line of lines) show(line);
        });
    };
    const timer = setInterval(pump, 250);
    let watcher: ReturnType<typeof watch> | null = null;
    try {
      watcher = watch(context.home, () => pump());
    } catch {
      // polling alone is enough
    }
    process.once("SIGINT", () => {
      clearInterval(timer);
      watcher?.close();
      resolve();
    });
  });
  return exitCodes.ok;
}
