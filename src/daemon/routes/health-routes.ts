/**
 * `GET /healthz` and `GET /readyz`: the probes of a process supervisor (systemd, Kubernetes).
 * They need no credential and answer no data, only `{"status"}`: 200 when alive (healthz) or
 * ready to take work (readyz, see process/readiness.ts), 503 otherwise. Host and Origin are
 * checked as on every route.
 */
import { ProbeAnswerSchema } from "../../api/schemas/server.js";
import type { ProbeAnswer } from "../../api/server.js";
import type { HttpApp } from "../http/create-http-app.js";
import { registerResource } from "../http/resource.js";
import type { Readiness } from "../process/readiness.js";

export interface HealthRouteOptions {
  readiness(): Promise<Readiness>;
  /** Told when readiness changes, with the reason (the answer never carries it). */
  changed(readiness: Readiness): void;
}

/** Register the two probes. */
export function registerHealthRoutes(app: HttpApp, options: HealthRouteOptions): void {
  const ok: ProbeAnswer = { status: "ok" };
  registerResource(app, "/healthz", {
    GET: {
      schema: { response: { 200: ProbeAnswerSchema } },
      config: { public: true, doc: { summary: "Liveness probe: 200 while the process serves (public)" } },
      handler: async () => ok,
    },
  });
  let last: boolean | null = null;
  registerResource(app, "/readyz", {
    GET: {
      schema: { response: { 200: ProbeAnswerSchema, 503: ProbeAnswerSchema } },
      config: {
        public: true,
        doc: {
          summary: "Readiness probe (public)",
          description:
            "200 when the daemon can take work: not draining, its database answers and holds every migration, its cluster node registered and holding its leases; 503 otherwise. The reason is logged, never answered.",
        },
      },
      handler: async (_request, reply) => {
        const readiness = await options.readiness();
        if (readiness.ready !== last) {
          last = readiness.ready;
          options.changed(readiness);
        }
        if (readiness.ready) return ok;
        const unavailable: ProbeAnswer = { status: "unavailable" };
        return reply.code(503).header("cache-control", "no-store").send(unavailable);
      },
    },
  });
}
