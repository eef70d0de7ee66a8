/**
 * The daemon process: settings → home (0700) and its lock → database and session log →
 * recovery of turns a crash cut short → HTTP on loopback → daemon.json; then serve until a
 * SIGTERM or `POST /server/shutdown` drains it.
 *
 * Boundary rule: wiring only. Each piece is built here once and handed to the ones that need
 * it; nothing below this file reads the environment or knows about the process.
 */

import { randomBytes } from "node:crypto";
import { rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { v7 as uuidv7 } from "uuid";
import { protocolVersion } from "../api/protocol.js";
import { checkpointStore } from "../home/checkpoints.js";
import { homeLockedExitCode } from "../home/exit-codes.js";
import { packageRoot, packageVersion } from "../home/package-version.js";
import type { HeadSigner } from "../log/head-signer.js";
import { McpManager } from "../mcp/mcp-manager.js";
import { builtinToolKit, WorkspaceConfigurationError, workspaceProblem } from "../tools/builtin-tools.js";
import { probeNetworkHelper } from "../tools/network-helper.js";
import { describeShellChoice } from "../tools/shell-mode.js";
import { SessionRegistry } from "./actor/session-registry.js";
import { ClusterNode } from "./cluster/cluster-node.js";
import { profilesDigest } from "./cluster/config-digest.js";
import { workspaceMissingOnNode } from "./cluster/node-workspace.js";
import { warnWherePeersDistrust } from "./cluster/peer-trust.js";
import { registerForwarding } from "./cluster/request-forwarding.js";
import { BrowserLogins } from "./http/browser-logins.js";
import { closeListener } from "./http/close-listener.js";
import { createHttpApp } from "./http/create-http-app.js";
import { problem } from "./http/problem.js";
import { StaticAssets } from "./http/static-assets.js";
import { apiKeys } from "./process/api-key-lookup.js";
import { DaemonMetrics } from "./process/daemon-metrics.js";
import { previousInstanceId, removeDiscoveryFile, writeDiscoveryFile } from "./process/discovery-file.js";
import { DrainController, installSignalHandlers } from "./process/drain.js";
import { establishHeadTrust } from "./process/head-trust.js";
import { ensureHome } from "./process/home.js";
import { HomeLock, HomeLockedError } from "./process/home-lock.js";
import { closeInheritedDescriptors } from "./process/inherited-descriptors.js";
import { loginFile } from "./process/login-file.js";
import { defaultNodeUrl, listenHostNames, nodeAddressWarnings } from "./process/node-address.js";
import { choosePort } from "./process/port.js";
import { NoProviderError, ProviderConfigSource } from "./process/provider-config.js";
import { providerProbe } from "./process/provider-probe.js";
import { checkReadiness } from "./process/readiness.js";
import { SecretsSource } from "./process/secrets-source.js";
import { sessionProviders } from "./process/session-providers.js";
import { type DaemonSettings, readSettings } from "./process/settings.js";
import { shellInfo } from "./process/shell-info.js";
import { loadSigningKey } from "./process/signing-key.js";
import { registerApprovalRoutes } from "./routes/approval-routes.js";
import { registerClusterRoutes } from "./routes/cluster-routes.js";
import { registerCompactRoutes } from "./routes/compact-routes.js";
import { registerDebugRoutes } from "./routes/debug-routes.js";
import { registerHealthRoutes } from "./routes/health-routes.js";
import { registerHistoryRoutes } from "./routes/history-routes.js";
import { registerInputRoutes } from "./routes/input-routes.js";
import { registerMcpRoutes } from "./routes/mcp-routes.js";
import { registerMetricsRoutes } from "./routes/metrics-routes.js";
import { registerOpenApiRoute } from "./routes/openapi-routes.js";
import { registerProviderRoutes } from "./routes/provider-routes.js";
import { registerRepairRoutes } from "./routes/repair-routes.js";
import type { RouteServices } from "./routes/route-services.js";
import { registerServerRoutes } from "./routes/server-routes.js";
import { registerSessionRoutes } from "./routes/session-routes.js";
import { registerVerifyRoutes } from "./routes/verify-routes.js";
import { registerWebRoutes } from "./routes/web-routes.js";
import { findProjectInstructions } from "./session/project-instructions.js";
import type { SessionServices } from "./session/session-services.js";
import { databaseFiles, openDaemonDatabase, schemaVersion } from "./storage/database.js";
import { openPgDaemonDatabase } from "./storage/pg-database.js";
import { PgSessionStorage } from "./storage/pg-session-storage.js";
import type { SessionStorage } from "./storage/session-storage.js";
import { SqliteSessionStorage } from "./storage/sqlite-session-storage.js";
import { checkpointWorkspace } from "./turn/workspace-checkpoints.js";

// `skein backup` and `skein restore` reach the daemon's storage through this module (load-daemon.ts).
export { backupHome, HomeBackupError, restoreHome } from "./process/home-backup.js";

/** The system prompt of a session created without one. */
export function defaultSystemPrompt(workspace: string): string {
  return (
    `You are a capable software agent working in the directory ${workspace}. ` +
    "Use the tools to inspect and change files there and to run commands; paths are relative to that directory. " +
    "Be concise, check your work, and say what you changed."
  );
}

/** A running daemon, as `startDaemon` returns it (tests and `skein daemon run`). */
export interface RunningDaemon {
  settings: DaemonSettings;
  port: number;
  instanceId: string;
  /** Drain and stop; resolves when everything is closed. */
  shutdown(timeoutMs: number): Promise<void>;
  /** Resolves when the daemon has stopped (after a shutdown from any source). */
  stopped: Promise<void>;
}

/** Where the daemon's log records go: one JSON line per call (default: stdout, as written). */
export interface LogSink {
  write(line: string): void;
}

/** Start the daemon from the environment; throws a clear error if it cannot (home locked, bad settings). */
export async function startDaemon(
  env: NodeJS.ProcessEnv = process.env,
  options: { logSink?: LogSink } = {},
): Promise<RunningDaemon> {
  const settings = readSettings(env);
  ensureHome(settings.home);
  const lock = HomeLock.acquire(settings.home);
  const loggerOptions = { level: env.SKEIN_LOG_LEVEL ?? "info", base: { pid: process.pid } };
  const logger = options.logSink === undefined ? pino(loggerOptions) : pino(loggerOptions, options.logSink);
  // Whatever boot opened is closed again, in reverse order, if a later step fails: a daemon
  // that cannot finish starting must not keep listening or hold the home.
  const undo: Array<() => Promise<void> | void> = [() => lock.release()];
  try {
    return await boot(settings, env, lock, logger, undo);
  } catch (error) {
    for (const step of undo.reverse()) {
      try {
        await step();
      } catch (cleanupError) {
        logger.error({ err: cleanupError }, "cleanup after a failed start failed");
      }
    }
    throw error;
  }
}

async function boot(
  settings: DaemonSettings,
  env: NodeJS.ProcessEnv,
  lock: HomeLock,
  logger: pino.Logger,
  undo: Array<() => Promise<void> | void>,
): Promise<RunningDaemon> {
  const instanceId = uuidv7();
  const { signer, created: keyCreated } = await loadSigningKey(settings.home);
  const storage = await openStorage(settings, signer, logger);
  undo.push(() => storage.close());
  const providers = new ProviderConfigSource(settings.home);
  // API keys: config.json, the daemon's environment, then the keys `skein auth set` stored.
  const keys = apiKeys(env, new SecretsSource(settings.home));
  // Before any session is read: which signed heads count (this home's key and config.json's).
  await establishHeadTrust({
    home: settings.home,
    signer,
    keyCreated,
    signUnsignedHeads: () => storage.signUnsignedHeads(),
    configuredKeys: () => providers.current().trustedHeadKeys ?? [],
    logger,
    now: () => Date.now(),
  });
  // On PostgreSQL this daemon is one node of a cluster: sessions are owned under leases.
  let registry: SessionRegistry | null = null;
  const cluster =
    storage instanceof PgSessionStorage
      ? new ClusterNode(storage.pool, {
          nodeId: instanceId,
          url: settings.nodeUrl ?? "",
          leaseMs: settings.leaseSeconds * 1000,
          signer,
          logger,
          previousIncarnation: previousInstanceId(settings.home),
          profilesDigest: () => profilesDigest(providers.current()),
          nodeHistoryMs: settings.nodeHistorySeconds * 1000,
          adopt: async (sessionId) => {
            await registry?.get(sessionId);
          },
          lost: (sessionId, epoch) => registry?.leaseLost(sessionId, epoch),
        })
      : null;
  if (cluster !== null && storage instanceof PgSessionStorage) {
    storage.fenceWith(cluster);
    undo.push(() => cluster.stop());
  }
  const drain = new DrainController();
  const historySecret = randomBytes(32).toString("hex");
  const now = () => Date.now();
  // The home holds the token and API keys, the database every session: no tool touches them.
  const hiddenPaths = [
    settings.home,
    ...(settings.database.kind === "sqlite" ? databaseFiles(settings.database.path) : []),
  ];
  // Hidden paths resolved and the shell chosen once for every turn's tools.
  const toolKit = builtinToolKit({
    hiddenPaths,
    env,
    // Read at each call: an edit of config.json applies without a restart.
    fetchAllowAddresses: () => providers.current().webFetch?.allowAddresses ?? [],
  });
  const shellChoice = toolKit.shell;
  const shell = describeShellChoice(shellChoice);
  if (shell.warning) logger.warn(shell.text);
  else logger.info(shell.text);
  // MCP servers run in the same sandbox as commands where it works, each with its own directory
  // under the home and, unless its entry says otherwise, an outbound-only network (mcp/server-sandbox.ts).
  const mcpSandbox =
    shellChoice.mode === "sandboxed"
      ? {
          bwrapPath: shellChoice.bwrapPath,
          filter: shellChoice.socketFilter,
          hidden: toolKit.hidden,
          stateRoot: join(settings.home, "mcp"),
          network: probeNetworkHelper(),
        }
      : null;
  if (mcpSandbox !== null && !mcpSandbox.network.usable) {
    logger.warn(`MCP servers with the network on will not start: ${mcpSandbox.network.reason}`);
  }
  if (mcpSandbox === null) logger.warn("MCP servers run unconfined: bubblewrap is not usable here");
  // MCP servers start on first use; each gets only the environment its config names.
  const mcp = new McpManager({
    config: () => ({
      servers: providers.current().mcpServers ?? {},
      error: providers.lastError?.message ?? null,
    }),
    env,
    sandbox: mcpSandbox,
    clientVersion: packageVersion(),
    logger,
    now,
  });
  undo.push(() => mcp.stop());

  const sessionServices: SessionServices = {
    storage,
    ...(cluster === null ? {} : { ownership: cluster }),
    historySecret,
    logger,
    now,
    isDraining: () => drain.draining,
    observeEvent: (sessionId, type, data) => metrics.observe(sessionId, type, data),
    // Built-in tools first: a refused workspace fails the turn before any MCP server starts for it.
    tools: async (session) => {
      // A session's turns run on whichever node owns it: its workspace must be on this one too.
      const missing = cluster === null ? null : await workspaceMissingOnNode(session.workspace, cluster.url);
      if (missing !== null) throw new WorkspaceConfigurationError(session.workspace, missing);
      return [
        ...toolKit.toolsFor(session.workspace),
        ...(await mcp.toolsFor(session.mcpServers, session.workspace)),
      ];
    },
    turnSettings: (session) => providers.turnSettings(session.providerProfile),
    ...(env.SKEIN_CHECKPOINTS === "0"
      ? {}
      : {
          checkpoint: async (session, turnId, phase) => {
            try {
              await checkpointWorkspace(
                { home: settings.home, hiddenPaths },
                session.id,
                session.workspace,
                turnId,
                phase,
              );
            } catch (error) {
              logger.warn({ session: session.id, turnId, phase, err: error }, "workspace checkpoint skipped");
            }
          },
          removeCheckpoints: (sessionId) => {
            // A long session's store holds many objects: removed off the event loop, failures logged.
            rm(checkpointStore(settings.home, sessionId), { recursive: true, force: true }).catch(
              (error: unknown) =>
                logger.warn({ session: sessionId, err: error }, "workspace checkpoints not removed"),
            );
          },
        }),
    ...sessionProviders(providers, keys),
  };
  const sessions = new SessionRegistry(sessionServices);
  const metrics = new DaemonMetrics({
    census: () => sessions.census(),
    commitStats: () => storage.commitStats(),
    mcp: () => mcp.status(),
    ...(cluster === null ? {} : { node: () => cluster.health() }),
  });
  registry = sessions;
  undo.push(() => sessions.drain(0));
  // A cluster node recovers by claiming sessions with work and no live owner (cluster-node.ts).
  if (cluster === null) await sessions.recover();

  const routeServices: RouteServices = {
    registry: sessions,
    storage,
    historySecret,
    now,
    defaultSystemPrompt,
    workspaceProblem: (workspace) => workspaceProblem(workspace, hiddenPaths),
    projectInstructions: (workspace) => findProjectInstructions(workspace, { hiddenPaths }),
    mcpServerNames: () => mcp.serverNames(),
    providerDefaults: (name) => {
      try {
        const named = providers.resolveProfile(name);
        return { name: named.name, model: named.profile.model };
      } catch (error) {
        // A session may be created before any provider exists; its turns say how to add one.
        if (error instanceof NoProviderError && name === null) return { name: null, model: null };
        if (error instanceof NoProviderError) throw problem("invalid_request", error.message);
        throw error;
      }
    },
    resolveProfile: (name) => providers.resolveProfile(name),
    ...providerProbe(keys),
  };

  let stoppedResolve: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stoppedResolve = resolve;
  });
  const logins = new BrowserLogins(loginFile(settings.home));
  const app = createHttpApp({
    token: settings.token,
    logins,
    isDraining: () => drain.draining,
    loggerInstance: logger,
    // Clients on other machines and relays from other nodes name the address they used.
    extraHosts: listenHostNames(settings.host, networkInterfaces()),
    publicUrls: [...(settings.nodeUrl === null ? [] : [settings.nodeUrl]), ...settings.publicUrls],
  });
  undo.push(() => app.close());
  let shuttingDown: Promise<void> | null = null;
  const shutdown = (timeoutMs: number): Promise<void> => {
    shuttingDown ??= (async () => {
      logger.info({ timeoutMs }, "draining");
      void drain.begin(timeoutMs);
      // Streams relayed through this node end now: their clients resume on another node.
      relays?.closeAll();
      // Another live node recovers a cut turn at once: wait only for tools that are running.
      const handOff = cluster !== null && (await cluster.othersLive().catch(() => false));
      await sessions.drain(timeoutMs, { handOff });
      // Hand the sessions off at once: released leases, and a wake-up for the other nodes.
      await cluster?.stop();
      // Stop accepting and cut the streams before stopping the MCP servers, which may take
      // seconds: a client whose stream ended reconnects at once, and a listener still open
      // then would take it in and the close would wait on it.
      await closeListener(app);
      await mcp.stop();
      await removeDiscoveryFile(settings.home, { pid: process.pid, instance_id: instanceId }).catch(
        () => undefined,
      );
      const commits = storage.commitStats();
      await storage.close();
      lock.release();
      logger.info({ groupCommit: commits }, "stopped");
      stoppedResolve();
    })();
    return shuttingDown;
  };

  registerServerRoutes(app, {
    instanceId,
    version: packageVersion(),
    shell: shellInfo(shellChoice),
    isDraining: () => drain.draining,
    shutdown: (timeoutMs) => {
      // Answer the request first; the drain closes the listener.
      setTimeout(() => void shutdown(timeoutMs), 10).unref();
    },
  });
  registerMetricsRoutes(app, metrics);
  registerHealthRoutes(app, {
    readiness: () =>
      checkReadiness({
        draining: () => drain.draining,
        appliedSchemaVersion: () => storage.appliedSchemaVersion(),
        knownSchemaVersion: schemaVersion,
        ...(cluster === null ? {} : { clusterNotReady: () => cluster.health().notReady }),
        databaseTimeoutMs: 2_000,
      }),
    changed: (now) =>
      now.ready ? logger.info("ready (readyz)") : logger.warn({ reason: now.reason }, "not ready (readyz)"),
  });
  const relays = cluster === null ? null : registerForwarding(app, { node: cluster, token: settings.token });
  registerClusterRoutes(app, cluster);
  registerSessionRoutes(app, routeServices);
  registerInputRoutes(app, routeServices);
  registerApprovalRoutes(app, routeServices);
  registerCompactRoutes(app, routeServices);
  registerRepairRoutes(app, routeServices);
  registerHistoryRoutes(app, routeServices);
  registerVerifyRoutes(app, routeServices, signer);
  registerProviderRoutes(app, routeServices);
  registerMcpRoutes(app, { mcp, workspaceProblem: routeServices.workspaceProblem });
  if (settings.inspect) registerDebugRoutes(app, routeServices);
  registerOpenApiRoute(app, () => ({
    version: packageVersion(),
    protocol: protocolVersion,
    port: (app.server.address() as AddressInfo).port,
  }));
  const root = packageRoot();
  registerWebRoutes(app, {
    logins,
    assets: root === null ? null : StaticAssets.load(join(root.directory, "dist", "web")),
    port: () => (app.server.address() as AddressInfo).port,
  });

  const port = await choosePort({ configured: settings.port, home: settings.home, host: settings.host });
  await app.listen({ host: settings.host, port });
  if (cluster !== null && settings.database.kind === "postgres") {
    cluster.url = settings.nodeUrl ?? defaultNodeUrl(settings.host, port);
    for (const warning of nodeAddressWarnings(cluster.url, settings.host, settings.nodeUrl !== null))
      logger.warn(warning);
    await cluster.start({ connectionString: settings.database.url });
    // In the background: the answer only decides whether to warn.
    void warnWherePeersDistrust(cluster, { token: settings.token, logger }).catch((error: unknown) =>
      logger.info({ err: error }, "could not ask the other nodes whether they trust this node's key"),
    );
  }
  await writeDiscoveryFile(settings.home, {
    pid: process.pid,
    port,
    token: settings.token,
    version: protocolVersion,
    instance_id: instanceId,
  });
  sessions.startUnloading(settings.unloadSeconds * 1000);
  logger.info({ port, home: settings.home, instanceId }, "ready");
  return { settings, port, instanceId, shutdown, stopped };
}

/** The storage `SKEIN_DB` selects: the SQLite file (closed with the storage) or PostgreSQL. */
async function openStorage(
  settings: DaemonSettings,
  signer: HeadSigner,
  logger: pino.Logger,
): Promise<SessionStorage> {
  const target = settings.database;
  switch (target.kind) {
    case "sqlite": {
      return new SqliteSessionStorage(
        openDaemonDatabase(target.path, { countStatements: settings.countStatements }),
        {
          signer,
          ownsDb: true,
          slowDisk: settings.slowDisk,
          onCheckpointError: (message) => logger.warn({ err: message }, "SQLite checkpoint failed; retrying"),
        },
      );
    }
    case "postgres":
      // Half a lease (at least 1 s): a node paused mid-transaction loses its locks before its leases expire.
      return new PgSessionStorage(
        await openPgDaemonDatabase(target.url, {
          idleInTransactionMs: Math.max(1000, (settings.leaseSeconds * 1000) / 2),
        }),
        { signer },
      );
    default: {
      const unknown: never = target;
      throw new Error(`unknown database ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * `skein daemon run`: start, serve until drained, exit 0. A daemon that cannot start exits
 * non-zero with a message: 75 when another daemon owns the home (so a starter that lost the
 * race can tell), 1 otherwise.
 */
export async function runDaemonForeground(
  env: NodeJS.ProcessEnv = process.env,
  options: { logSink?: LogSink } = {},
): Promise<number> {
  // Before anything is spawned: no command or server may inherit the starter's descriptors.
  closeInheritedDescriptors(env);
  let daemon: RunningDaemon;
  try {
    daemon = await startDaemon(env, options);
  } catch (error) {
    process.stderr.write(`skein daemon: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof HomeLockedError ? homeLockedExitCode : 1;
  }
  const removeHandlers = installSignalHandlers({
    drain: () => daemon.shutdown(30_000),
  });
  await daemon.stopped;
  removeHandlers();
  return 0;
}
