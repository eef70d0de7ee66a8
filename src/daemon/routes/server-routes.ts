/** `GET /server` and `POST /server/shutdown`. */
import { Type } from "typebox";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";

export interface ServerRouteOptions {
  instanceId: string;
  version: string;
  isDraining(): boolean;
  /** Begin the drain (idempotent); the daemon exits once it is done. */
  shutdown(timeoutMs: number): void;
}

/** The capabilities this daemon announces (versions of the protocol features clients may rely on). */
export const capabilities = {
  durable_inputs: 1,
  session_replay: 2,
  history_paging: 1,
  fork: 1,
  session_list: 1,
} as const;

const ShutdownBody = Type.Object(
  { instance_id: Type.String(), timeout_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 300_000 })) },
  { additionalProperties: false },
);

/** Register `GET /server` and `POST /server/shutdown`. */
export function registerServerRoutes(app: HttpApp, options: ServerRouteOptions): void {
  registerResource(app, "/server", {
    GET: {
      handler: async () => ({
        instance_id: options.instanceId,
        protocol: 3,
        state: options.isDraining() ? "draining" : "ready",
        capabilities,
        version: options.version,
      }),
    },
  });
  registerResource(app, "/server/shutdown", {
    POST: {
      schema: { body: ShutdownBody },
      handler: async (request, reply) => {
        const body = request.body as { instance_id: string; timeout_ms?: number };
        if (body.instance_id !== options.instanceId) {
          throw problem(
            "instance_changed",
            `this daemon is instance ${options.instanceId}, not ${body.instance_id}`,
          );
        }
        options.shutdown(body.timeout_ms ?? 5_000);
        return reply.code(202).send({ instance_id: options.instanceId, state: "draining" });
      },
    },
  });
}
