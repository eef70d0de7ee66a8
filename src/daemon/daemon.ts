/**
 * The daemon process: settings → home (0700) and its lock → database and session log →
 * recovery of turns a crash cut short → HTTP on loopback → daemon.json; then serve until a
 * SIGTERM or `POST /server/shutdown` drains it.
 *
 * Boundary rule: wiring only. Each piece is built here once and handed to the ones that need
 * it; nothing below this file reads the environment or knows about the process.
 */

import { randomBytes } from "node:crypto";
import { networkInterfaces } from "node:os";
import pino from "pino";
import { capabilities, protocolVersion } from "../api/protocol.js";
import { homeLockedExitCode } from "../home/exit-codes.js";
import type { HeadSigner } from "../log/head-signer.js";
import { timeOrderedId } from "../model/time-ordered-id.js";
import { recoverSessions } from "./actor/boot-recovery.js";
import { SessionRegistry } from "./actor/session-registry.js";
import type { SessionRetention } from "./actor/session-retention.js";
import { taskToolName } from "./approval/approval-policy.js";
import {
  type DaemonParts,
  meteredBy,
  metricsAndRetentionOf,
  routeServicesOf,
  sessionServicesOf,
  startHousekeeping,
} from "./boot/daemon-services.js";
import { daemonStop, type StoppableServing } from "./boot/daemon-stop.js";
import { delegationParts, taskObserver, taskWakeUpsOf } from "./boot/delegation-of.js";
import { joinCluster, type RegistryHolder } from "./boot/join-cluster.js";
import { outboxSleepMs } from "./boot/longest-sleep.js";
import { openStorage } from "./boot/open-storage.js";
import { openWakeUps } from "./boot/open-wake-ups.js";
import { registerRoutes } from "./boot/register-routes.js";
import { schedulerOf, scheduleWakeUpsOf } from "./boot/scheduler-of.js";
import { followSharedConfig } from "./boot/share-config.js";
import { startTooling } from "./boot/start-tooling.js";
import { startTracing } from "./boot/start-tracing.js";
import { tokenLookupOf } from "./boot/token-lookup.js";
import { warnWherePeersDistrust } from "./cluster/peer-trust.js";
import type { Relays } from "./cluster/request-forwarding.js";
import { BrowserLogins } from "./http/browser-logins.js";
import { createHttpApp, type HttpApp } from "./http/create-http-app.js";
import type { TokenLookup } from "./http/request-authority.js";
import { daemonNotifications } from "./notify/daemon-notifications.js";
import { apiKeys } from "./process/api-key-lookup.js";
import type { DaemonMetrics } from "./process/daemon-metrics.js";
import { writeDiscoveryFile } from "./process/discovery-file.js";
import { DrainController, installSignalHandlers } from "./process/drain.js";
import { recheckStamps } from "./process/file-stamp.js";
import { establishHeadTrust } from "./process/head-trust.js";
import { ensureHome } from "./process/home.js";
import { HomeLock, HomeLockedError } from "./process/home-lock.js";
import { closeInheritedDescriptors } from "./process/inherited-descriptors.js";
import { loginFile } from "./process/login-file.js";
import {
  defaultNodeUrl,
  isWildcardAddress,
  listenHostNames,
  nodeAddressWarnings,
} from "./process/node-address.js";
import { choosePort, rememberPort } from "./process/port.js";
import { ProviderConfigSource } from "./process/provider-config.js";
import { SecretsSource } from "./process/secrets-source.js";
import { type DaemonSettings, readSettings } from "./process/settings.js";
import { loadSigningKey } from "./process/signing-key.js";
import { readTlsFiles } from "./process/tls-files.js";
import { databaseFiles } from "./storage/database.js";
import type { SessionStorage } from "./storage/session-storage.js";

// `skein backup` and `skein restore` reach the daemon's storage through this module (load-daemon.ts).
export { backupHome, HomeBackupError, restoreHome } from "./process/home-backup.js";

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

/** The clock of the daemon's parts (ms since the epoch). */
const wallClock = (): number => Date.now();

/** The daemon's start, phase by phase; each phase that opens something leaves its undo step. */
async function boot(
  settings: DaemonSettings,
  env: NodeJS.ProcessEnv,
  lock: HomeLock,
  logger: pino.Logger,
  undo: Array<() => Promise<void> | void>,
): Promise<RunningDaemon> {
  const instanceId = timeOrderedId();
  const tracing = await startTracing(env, logger, undo);
  const { signer, created: keyCreated } = await loadSigningKey(settings.home);
  const storage = await openStorage(settings, signer, logger);
  undo.push(() => storage.close());
  const wakeUps = await openWakeUps(settings, logger);
  if (wakeUps !== null) undo.push(() => wakeUps.stop());
  const providers = new ProviderConfigSource(settings.home);
  // Before any session is read: which signed heads count (this home's key and config.json's).
  await trustHeads(settings, { signer, created: keyCreated }, storage, providers, logger);
  const registry: RegistryHolder = { current: null };
  const cluster = joinCluster(storage, { settings, instanceId, signer, logger, providers, registry });
  if (cluster !== null) undo.push(() => cluster.stop());
  // Before any turn runs: on a cluster, the profiles every node shares.
  const sharedConfig = await followSharedConfig(storage, wakeUps, providers, logger);
  if (sharedConfig !== null) undo.push(() => sharedConfig.stop());
  const hiddenPaths = hiddenPathsOf(settings);
  const tooling = startTooling({ settings, env, providers, hiddenPaths, logger, now: wallClock });
  undo.push(() => tooling.mcp.stop());
  const drain = new DrainController();
  const notifications = daemonNotifications(
    storage,
    () => providers.current().notifications ?? [],
    env,
    logger,
    { taskTool: taskToolName, longestWaitMs: outboxSleepMs(cluster) },
  );
  undo.push(() => notifications.stop());
  const parts: DaemonParts = {
    settings,
    env,
    storage,
    cluster,
    wakeUps,
    sharedConfig,
    providers,
    tooling,
    drain,
    hiddenPaths,
    logger,
    tracing,
    notifications,
    now: wallClock,
    historySecret: randomBytes(32).toString("hex"),
    keys: apiKeys(env, new SecretsSource(settings.home)),
  };
  const { delegation, hub } = delegationParts(parts, registry);
  const taskWakeUps = await taskWakeUpsOf(parts, hub);
  if (taskWakeUps !== null) undo.push(() => taskWakeUps.stop());
  const sessions = new SessionRegistry({
    ...sessionServicesOf(parts),
    ...meteredBy(() => metrics, taskObserver(hub, taskWakeUps), notifications),
    delegation,
  });
  const { metrics, retention } = metricsAndRetentionOf(parts, sessions);
  registry.current = sessions;
  undo.push(() => sessions.drain(0));
  // A cluster node recovers by claiming sessions with work and no live owner (cluster-node.ts).
  if (cluster === null) await recoverSessions(sessions, { storage, logger });

  return serve(parts, { instanceId, signer, lock, sessions, metrics, retention, taskWakeUps }, undo);
}

/** The serving phase: the routes, the listener, daemon.json, then the unloading and the scheduler. */
async function serve(
  parts: DaemonParts,
  running: {
    instanceId: string;
    signer: HeadSigner;
    lock: HomeLock;
    sessions: SessionRegistry;
    metrics: DaemonMetrics;
    retention: SessionRetention;
    taskWakeUps: StoppableServing["taskWakeUps"];
  },
  undo: Array<() => Promise<void> | void>,
): Promise<RunningDaemon> {
  const { settings, drain, logger, storage, cluster, tooling, providers, sharedConfig } = parts;
  const { instanceId, signer, lock, sessions, metrics, retention, taskWakeUps } = running;
  const logins = new BrowserLogins(loginFile(settings.home));
  const app = openHttpApp(settings, { logins, tokens: tokenLookupOf(storage.apiTokens) }, drain, logger);
  undo.push(() => app.close());
  let relays: Relays | null = null;
  const routeServices = routeServicesOf(parts, sessions, metrics, retention);
  const scheduler = schedulerOf(parts, sessions, routeServices);
  const scheduleWakeUps = await scheduleWakeUpsOf(parts, scheduler);
  if (scheduleWakeUps !== null) undo.push(() => scheduleWakeUps.unsubscribe());
  const relaysNow = () => relays;
  const serving = {
    instanceId,
    relays: relaysNow,
    scheduler,
    sessions,
    retention,
    app,
    lock,
    metrics,
    taskWakeUps,
    scheduleWakeUps,
  };
  const stop = daemonStop(parts, serving);
  relays = registerRoutes(app, {
    settings,
    instanceId,
    signer,
    cluster,
    toolKit: tooling.toolKit,
    mcp: tooling.mcp,
    drain,
    logins,
    metrics,
    storage,
    logger,
    services: routeServices,
    config: { providers, shared: sharedConfig },
    // Answer the request first; the drain closes the listener.
    shutdown: (timeoutMs) => setTimeout(() => void stop.shutdown(timeoutMs), 10).unref(),
    schedulesChanged: () => scheduler.wake(),
  });
  const port = await listen(app, parts);
  await publishDiscovery(settings, { port, instanceId, configShared: sharedConfig !== null });
  startHousekeeping(settings, sessions, retention);
  scheduler.start();
  parts.notifications.start();
  logger.info({ port, home: settings.home, instanceId }, "ready");
  return { settings, port, instanceId, shutdown: stop.shutdown, stopped: stop.stopped };
}

/** daemon.json: how clients reach this daemon, and where `skein config` writes for it. */
async function publishDiscovery(
  settings: DaemonSettings,
  daemon: { port: number; instanceId: string; configShared: boolean },
): Promise<void> {
  await writeDiscoveryFile(settings.home, {
    pid: process.pid,
    port: daemon.port,
    token: settings.token,
    version: protocolVersion,
    capabilities,
    instance_id: daemon.instanceId,
    config_source: daemon.configShared ? "database" : "file",
    // A client on this machine connects to the listen address (loopback for a wildcard one).
    ...(settings.host === "127.0.0.1" || isWildcardAddress(settings.host) ? {} : { host: settings.host }),
    ...(settings.tls === null ? {} : { tls_cert: settings.tls.certPath }),
  });
}

/** Which signed heads count: this home's key (signing the heads not signed yet) and config.json's. */
async function trustHeads(
  settings: DaemonSettings,
  key: { signer: HeadSigner; created: boolean },
  storage: SessionStorage,
  providers: ProviderConfigSource,
  logger: pino.Logger,
): Promise<void> {
  await establishHeadTrust({
    home: settings.home,
    signer: key.signer,
    keyCreated: key.created,
    signUnsignedHeads: () => storage.signUnsignedHeads(),
    configuredKeys: () => providers.current().trustedHeadKeys ?? [],
    logger,
    now: () => Date.now(),
  });
}

/** The home holds the token and API keys, the database every session: no tool touches them. */
function hiddenPathsOf(settings: DaemonSettings): string[] {
  return [
    settings.home,
    ...(settings.database.kind === "sqlite" ? databaseFiles(settings.database.path) : []),
  ];
}

/** The HTTP app, its ingress rules set for this daemon's token, logins and addresses. */
function openHttpApp(
  settings: DaemonSettings,
  access: { logins: BrowserLogins; tokens: TokenLookup },
  drain: DrainController,
  logger: pino.Logger,
): HttpApp {
  const app = createHttpApp({
    token: settings.token,
    ...access,
    ...(settings.tls === null ? {} : { tls: readTlsFiles(settings.tls) }),
    trustedProxies: settings.trustProxy,
    isDraining: () => drain.draining,
    loggerInstance: logger,
    // Clients on other machines and relays from other nodes name the address they used.
    extraHosts: listenHostNames(settings.host, networkInterfaces()),
    publicUrls: [...(settings.nodeUrl === null ? [] : [settings.nodeUrl]), ...settings.publicUrls],
  });
  // Before the app's own listener: a request sees config.json and secrets.json as they were when
  // it was sent, though they are stat'ed at most once per event-loop iteration (file-stamp.ts).
  app.server.prependListener("request", recheckStamps);
  return app;
}

/** Listen on the chosen port; on a cluster, then take this node's place in it. The port. */
async function listen(app: HttpApp, parts: DaemonParts): Promise<number> {
  const { settings, cluster, wakeUps, logger } = parts;
  const port = await choosePort({ configured: settings.port, home: settings.home, host: settings.host });
  await app.listen({ host: settings.host, port });
  if (settings.port === 0) await rememberPort(settings.home, port);
  if (cluster !== null && wakeUps !== null) {
    cluster.url = settings.nodeUrl ?? defaultNodeUrl(settings.host, port);
    for (const warning of nodeAddressWarnings(cluster.url, settings.host, settings.nodeUrl !== null))
      logger.warn(warning);
    await cluster.start(wakeUps);
    // In the background: the answer only decides whether to warn.
    void warnWherePeersDistrust(cluster, { token: settings.token, logger }).catch((error: unknown) =>
      logger.info({ err: error }, "could not ask the other nodes whether they trust this node's key"),
    );
  }
  return port;
}

/**
 * `skein daemon run`: start, serve until drained, exit 0. A daemon that cannot start exits
 * non-zero with a message: 75 when another daemon owns the home (so a starter that lost the
 * race can tell), 1 otherwise. `onServing` runs once it has started and serves.
 */
export async function runDaemonForeground(
  env: NodeJS.ProcessEnv = process.env,
  options: { logSink?: LogSink; onServing?: () => void } = {},
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
  options.onServing?.();
  const removeHandlers = installSignalHandlers({
    drain: () => daemon.shutdown(30_000),
  });
  await daemon.stopped;
  removeHandlers();
  return 0;
}
