/** What boot hands the session actors and the routes: the two service bags, built from its parts. */

import { rm } from "node:fs/promises";
import type pino from "pino";
import { checkpointStore } from "../../home/checkpoints.js";
import { packageVersion } from "../../home/package-version.js";
import { WorkspaceConfigurationError } from "../../tools/builtin-tools.js";
import type { SessionRegistry } from "../actor/session-registry.js";
import { SessionRetention } from "../actor/session-retention.js";
import type { ClusterConfigFeed } from "../cluster/cluster-config-feed.js";
import type { ClusterNode } from "../cluster/cluster-node.js";
import { workspaceMissingOnNode } from "../cluster/node-workspace.js";
import type { WakeUpConnection } from "../cluster/wake-up-connection.js";
import { problem } from "../http/problem.js";
import type { DaemonNotifications } from "../notify/daemon-notifications.js";
import type { ApiKeys } from "../process/api-key-lookup.js";
import { DaemonMetrics } from "../process/daemon-metrics.js";
import type { DrainController } from "../process/drain.js";
import { NoProviderError, type ProviderConfigSource } from "../process/provider-config.js";
import { providerProbe } from "../process/provider-probe.js";
import { sessionProviders } from "../process/session-providers.js";
import type { DaemonSettings } from "../process/settings.js";
import { shellInfo } from "../process/shell-info.js";
import type { RouteServices } from "../routes/route-services.js";
import { findProjectInstructions } from "../session/project-instructions.js";
import type { SessionEventObserver, SessionServices } from "../session/session-services.js";
import type { SessionStorage } from "../storage/session-storage.js";
import { metricsExportSettingsOf } from "../telemetry/telemetry-settings.js";
import type { Tracing } from "../telemetry/tracing.js";
import { checkpointWorkspace } from "../turn/workspace-checkpoints.js";
import type { Tooling } from "./start-tooling.js";

/** The parts of the daemon both service bags are made of. */
export interface DaemonParts {
  settings: DaemonSettings;
  env: NodeJS.ProcessEnv;
  storage: SessionStorage;
  cluster: ClusterNode | null;
  /** The node's one wake-up connection, which the cluster's parts subscribe to (null on SQLite). */
  wakeUps: WakeUpConnection | null;
  /** The cluster's shared config this node follows (null on SQLite). */
  sharedConfig: ClusterConfigFeed | null;
  providers: ProviderConfigSource;
  tooling: Tooling;
  drain: DrainController;
  /** The home and the database files: no tool touches them. */
  hiddenPaths: string[];
  historySecret: string;
  /** API keys: config.json, the daemon's environment, then the keys `skein auth set` stored. */
  keys: ApiKeys;
  logger: pino.Logger;
  /** The daemon's tracing; null when no trace is exported. */
  tracing: Tracing | null;
  /** config.json's webhooks: the outbox's planner and deliverer. */
  notifications: DaemonNotifications;
  now: () => number;
}

/** The system prompt of a session created without one. */
export function defaultSystemPrompt(workspace: string): string {
  return (
    `You are a capable software agent working in the directory ${workspace}. ` +
    "Use the tools to inspect and change files there and to run commands; paths are relative to that directory. " +
    "Be concise, check your work, and say what you changed."
  );
}

/** What every session actor gets: storage, tools, provider settings and workspace checkpoints. */
export function sessionServicesOf(parts: DaemonParts): SessionServices {
  const { storage, cluster, tooling, providers, logger } = parts;
  return {
    storage,
    ...(cluster === null ? {} : { ownership: cluster }),
    historySecret: parts.historySecret,
    logger,
    ...(parts.tracing === null ? {} : { tracing: parts.tracing }),
    now: parts.now,
    isDraining: () => parts.drain.draining,
    // Built-in tools first: a refused workspace fails the turn before any MCP server starts for it.
    tools: async (session) => {
      // A session's turns run on whichever node owns it: its workspace must be on this one too.
      const missing = cluster === null ? null : await workspaceMissingOnNode(session.workspace, cluster.url);
      if (missing !== null) throw new WorkspaceConfigurationError(session.workspace, missing);
      return [
        ...tooling.toolKit.toolsFor(session.workspace),
        ...(await tooling.mcp.toolsFor(session.mcpServers, session.workspace)),
      ];
    },
    turnSettings: (session) => providers.turnSettings(session.providerProfile),
    ...(parts.env.SKEIN_CHECKPOINTS === "0" ? {} : workspaceCheckpoints(parts)),
    ...sessionProviders(providers, parts.keys),
  };
}

/** Checkpoints of a session's workspace around each turn, and their removal with the session. */
function workspaceCheckpoints(parts: DaemonParts): Pick<SessionServices, "checkpoint" | "removeCheckpoints"> {
  const { settings, hiddenPaths, logger } = parts;
  return {
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
        logger.warn(
          { session_id: session.id, run_id: turnId, phase, err: error },
          "workspace checkpoint skipped",
        );
      }
    },
    removeCheckpoints: (sessionId) => {
      // A long session's store holds many objects: removed off the event loop, failures logged.
      rm(checkpointStore(settings.home, sessionId), { recursive: true, force: true }).catch(
        (error: unknown) =>
          logger.warn({ session_id: sessionId, err: error }, "workspace checkpoints not removed"),
      );
    },
  };
}

/** The daemon's metrics: what sessions publish (observed), and what is read when scraped. */
function daemonMetricsOf(parts: DaemonParts, sessions: SessionRegistry): DaemonMetrics {
  const { cluster, logger } = parts;
  const metrics = new DaemonMetrics({
    census: () => sessions.census(),
    commitStats: () => parts.storage.commitStats(),
    mcp: () => parts.tooling.mcp.status(),
    ...(cluster === null ? {} : { node: () => cluster.health() }),
  });
  // Pushed over OTLP too when the OpenTelemetry variables ask for it.
  const { settings, warnings } = metricsExportSettingsOf(parts.env);
  for (const warning of warnings) logger.warn({ setting: warning }, "OpenTelemetry setting ignored");
  if (settings !== null) {
    metrics.exportWith(settings, packageVersion(), (error) =>
      logger.error({ err: error }, "could not start exporting metrics"),
    );
    logger.info({ exports: settings.exports, intervalMs: settings.intervalMillis }, "exporting metrics");
  }
  return metrics;
}

/** The daemon's metrics, and its retention (config.json's policy as it is now, each run's removals counted). */
export function metricsAndRetentionOf(
  parts: DaemonParts,
  registry: SessionRegistry,
): { metrics: DaemonMetrics; retention: SessionRetention } {
  const metrics = daemonMetricsOf(parts, registry);
  const retention = new SessionRetention({
    registry,
    services: sessionServicesOf(parts),
    policy: () => parts.providers.current().retention,
    removed: (report) => metrics.retained(report),
  });
  return { metrics, retention };
}

/** Start what runs in the background once the daemon is ready: unloading quiet actors, retention. */
export function startHousekeeping(
  settings: DaemonSettings,
  registry: SessionRegistry,
  retention: SessionRetention,
): void {
  registry.startUnloading(settings.unloadSeconds * 1000);
  retention.start();
}

/**
 * What sessions tell the daemon's metrics (made later, so reached through `metrics()`): their
 * events and timings (each event to `alsoObserve` first); and the webhooks: what each commit
 * owes, and when it is durable.
 */
export function meteredBy(
  metrics: () => DaemonMetrics,
  alsoObserve: SessionEventObserver,
  notifications: DaemonNotifications,
): Pick<SessionServices, "observeEvent" | "meter" | "notifications"> {
  return {
    notifications: notifications.planner,
    observeEvent: (sessionId, type, data) => {
      alsoObserve(sessionId, type, data);
      metrics().observe(sessionId, type, data);
      if (type === "committed") notifications.committed(sessionId);
    },
    meter: {
      modelRequest: (profile, model, seconds, outcome) =>
        metrics().modelRequest(profile, model, seconds, outcome),
      commit: (seconds) => metrics().commit(seconds),
    },
  };
}

/** What the routes get: the registry, retention, storage, provider defaults and workspace checks. */
export function routeServicesOf(
  parts: DaemonParts,
  registry: SessionRegistry,
  metrics: DaemonMetrics,
  retention: SessionRetention,
): RouteServices {
  const { providers } = parts;
  return {
    streamOptions: { countBytes: (bytes) => metrics.sseBytes(bytes) },
    registry,
    retention,
    storage: parts.storage,
    historySecret: parts.historySecret,
    shell: shellInfo(parts.tooling.toolKit.shell),
    now: parts.now,
    defaultSystemPrompt,
    // The hidden paths as the tool kit resolved them at start (a realpath each), not per session.
    workspaceProblem: (workspace) => parts.tooling.toolKit.workspaceProblem(workspace),
    projectInstructions: (workspace) =>
      findProjectInstructions(workspace, { hidden: parts.tooling.toolKit.hidden }),
    mcpServerNames: () => parts.tooling.mcp.serverNames(),
    ...(parts.tracing === null ? {} : { tracing: parts.tracing }),
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
    ...providerProbe(parts.keys),
  };
}
