/** Every route of the daemon's HTTP app, registered in the order requests are matched. */
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type pino from "pino";
import { protocolVersion } from "../../api/protocol.js";
import { packageRoot, packageVersion } from "../../home/package-version.js";
import type { HeadSigner } from "../../log/head-signer.js";
import type { McpManager } from "../../mcp/mcp-manager.js";
import { timeOrderedId } from "../../model/time-ordered-id.js";
import type { BuiltinToolKit } from "../../tools/builtin-tools.js";
import type { ClusterNode } from "../cluster/cluster-node.js";
import { type Relays, registerForwarding } from "../cluster/request-forwarding.js";
import type { BrowserLogins } from "../http/browser-logins.js";
import type { HttpApp } from "../http/create-http-app.js";
import { StaticAssets } from "../http/static-assets.js";
import type { DaemonMetrics } from "../process/daemon-metrics.js";
import type { DrainController } from "../process/drain.js";
import { checkReadiness } from "../process/readiness.js";
import type { DaemonSettings } from "../process/settings.js";
import { registerApprovalRoutes } from "../routes/approval-routes.js";
import { registerBudgetRoutes } from "../routes/budget-routes.js";
import { registerClusterRoutes } from "../routes/cluster-routes.js";
import { type ConfigRouteOptions, registerConfigRoutes } from "../routes/config-routes.js";
import { registerContextRoutes } from "../routes/context-routes.js";
import { registerDebugRoutes } from "../routes/debug-routes.js";
import { registerDeviceRoutes } from "../routes/device-routes.js";
import { type HealthRouteOptions, registerHealthRoutes } from "../routes/health-routes.js";
import { registerHistoryRoutes } from "../routes/history-routes.js";
import { registerInputRoutes } from "../routes/input-routes.js";
import { registerMcpRoutes } from "../routes/mcp-routes.js";
import { registerMetricsRoutes } from "../routes/metrics-routes.js";
import { registerOpenApiRoute } from "../routes/openapi-routes.js";
import { registerPairingRoute } from "../routes/pairing-route.js";
import { registerProviderRoutes } from "../routes/provider-routes.js";
import { registerRetentionRoutes } from "../routes/retention-routes.js";
import type { RouteServices } from "../routes/route-services.js";
import { registerScheduleRoutes } from "../routes/schedule-routes.js";
import { registerServerRoutes } from "../routes/server-routes.js";
import { registerSessionRoutes } from "../routes/session-routes.js";
import { registerTokenRoutes } from "../routes/token-routes.js";
import { registerVerifyRoutes } from "../routes/verify-routes.js";
import { registerWebRoutes } from "../routes/web-routes.js";
import { schemaVersion } from "../storage/database.js";
import type { SessionStorage } from "../storage/session-storage.js";

/** What the routes are registered with. */
export interface DaemonRoutes {
  settings: DaemonSettings;
  instanceId: string;
  signer: HeadSigner;
  cluster: ClusterNode | null;
  toolKit: BuiltinToolKit;
  mcp: McpManager;
  drain: DrainController;
  logins: BrowserLogins;
  services: RouteServices;
  metrics: DaemonMetrics;
  storage: SessionStorage;
  logger: pino.Logger;
  /** The config in force, and the cluster's shared config (null on SQLite). */
  config: ConfigRouteOptions;
  /** `POST /server/shutdown`: drain and stop within this time. */
  shutdown(timeoutMs: number): void;
  /** A schedule was created, resumed, paused or removed here (the scheduler looks again). */
  schedulesChanged(): void;
}

/** Register every route; the relays of requests forwarded to other nodes (null off a cluster). */
export function registerRoutes(app: HttpApp, routes: DaemonRoutes): Relays | null {
  const { settings, cluster, services } = routes;
  const port = () => (app.server.address() as AddressInfo).port;
  registerServerRoutes(app, {
    instanceId: routes.instanceId,
    version: packageVersion(),
    shell: services.shell,
    isDraining: () => routes.drain.draining,
    shutdown: routes.shutdown,
  });
  const metricsPort =
    settings.metricsPort === null ? null : { host: settings.host, port: settings.metricsPort };
  registerMetricsRoutes(app, routes.metrics, metricsPort);
  registerHealthRoutes(app, healthOf(routes));
  const relays =
    cluster === null
      ? null
      : registerForwarding(app, {
          node: cluster,
          token: settings.token,
          ...(services.tracing === undefined ? {} : { tracing: services.tracing }),
        });
  registerClusterRoutes(app, cluster);
  registerSessionRoutes(app, services);
  registerInputRoutes(app, services);
  registerApprovalRoutes(app, services);
  registerScheduleRoutes(app, services, { newId: () => timeOrderedId(), changed: routes.schedulesChanged });
  registerContextRoutes(app, services);
  registerBudgetRoutes(app, services);
  registerHistoryRoutes(app, services);
  registerVerifyRoutes(app, services, routes.signer);
  registerRetentionRoutes(app, services.retention);
  registerProviderRoutes(app, services);
  registerConfigRoutes(app, routes.config);
  registerTokenRoutes(app, routes.storage.apiTokens, Date.now);
  const devices = routes.storage.apiTokens.devices;
  const scheme = settings.tls !== null || settings.trustProxy.length > 0 ? "https" : "http";
  registerDeviceRoutes(app, { devices, now: Date.now, publicUrls: settings.publicUrls, scheme });
  registerPairingRoute(app, { devices, now: Date.now, port });
  registerMcpRoutes(app, { mcp: routes.mcp, workspaceProblem: services.workspaceProblem });
  if (settings.inspect) registerDebugRoutes(app, services);
  registerOpenApiRoute(app, () => ({ version: packageVersion(), protocol: protocolVersion, port: port() }));
  const root = packageRoot();
  registerWebRoutes(app, {
    logins: routes.logins,
    assets: root === null ? null : StaticAssets.load(join(root.directory, "dist", "web")),
    port,
    scheme,
    devices,
  });
  return relays;
}

/** Readiness (not draining, the database answering at this daemon's schema, the cluster node registered), and its changes logged. */
function healthOf(routes: DaemonRoutes): HealthRouteOptions {
  const { cluster, logger } = routes;
  return {
    readiness: () =>
      checkReadiness({
        draining: () => routes.drain.draining,
        appliedSchemaVersion: () => routes.storage.appliedSchemaVersion(),
        knownSchemaVersion: schemaVersion,
        ...(cluster === null ? {} : { clusterNotReady: () => cluster.health().notReady }),
        databaseTimeoutMs: 2_000,
      }),
    changed: (now) =>
      now.ready ? logger.info("ready (readyz)") : logger.warn({ reason: now.reason }, "not ready (readyz)"),
  };
}
