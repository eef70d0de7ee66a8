/**
 * `GET /metrics`: the daemon's metrics in Prometheus's text format (process/daemon-metrics.ts),
 * behind the bearer token like every route that holds data.
 */
import { Type } from "typebox";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import type { DaemonMetrics } from "../process/daemon-metrics.js";

/** Register the metrics route. */
export function registerMetricsRoutes(app: HttpApp, metrics: DaemonMetrics): void {
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
      config: { page: true, doc: { summary: "The daemon's metrics (Prometheus text format)" } },
      handler: async (_request, reply) =>
        reply
          .header("content-type", metrics.registry.contentType)
          .header("cache-control", "no-store")
          .send(await metrics.registry.metrics()),
    },
  });
}
