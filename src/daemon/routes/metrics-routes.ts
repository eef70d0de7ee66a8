/**
 * `GET /metrics`: the daemon's metrics in Prometheus's text format (process/daemon-metrics.ts),
 * behind the bearer token like every route that holds data; and, when SKEIN_METRICS_PORT is
 * set, the same on that port without the token (process/metrics-listener.ts), opened and closed
 * with the app.
 */
import type { Server } from "node:http";
import { Type } from "typebox";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import type { DaemonMetrics } from "../process/daemon-metrics.js";
import { listenForMetrics } from "../process/metrics-listener.js";

/** Register the metrics route (and the metrics port at `open`, when given). */
export function registerMetricsRoutes(
  app: HttpApp,
  metrics: DaemonMetrics,
  open: { host: string; port: number } | null,
): void {
  if (open !== null) {
    let server: Server | null = null;
    app.addHook("onReady", async () => {
      server = await listenForMetrics(metrics, open.host, open.port);
    });
    app.addHook("onClose", async () => {
      const listening = server;
      if (listening === null) return;
      // A scraper keeps its connection alive between scrapes: cut it, or the close waits for it.
      listening.closeAllConnections();
      await new Promise<void>((resolve) => listening.close(() => resolve()));
    });
  }
  registerResource(app, "/metrics", {
    GET: {
      schema: {
        response: {
          200: {
            description: "Prometheus text format 0.0.4; every metric name starts with skein_",
            content: { "text/plain": { schema: Type.String() } },
          },
        },
      },
      // Scrapers ask for text/plain or OpenMetrics; the answer is always the text format.
      config: {
        role: "viewer",
        page: true,
        doc: { summary: "The daemon's metrics (Prometheus text format)" },
      },
      handler: async (_request, reply) =>
        reply
          .header("content-type", metrics.registry.contentType)
          .header("cache-control", "no-store")
          .send(await metrics.registry.metrics()),
    },
  });
}
