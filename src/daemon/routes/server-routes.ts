/** `GET /server` and `POST /server/shutdown`. */
import { capabilities, protocolVersion } from "../../api/protocol.js";
import { ServerInfoSchema, ShutdownAnswerSchema, ShutdownBodySchema } from "../../api/schemas/server.js";
import type { ServerInfo, ShellInfo, ShutdownAnswer, ShutdownBody } from "../../api/server.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";

export interface ServerRouteOptions {
  instanceId: string;
  version: string;
  /** How run_command runs, as decided at start. */
  shell: ShellInfo;
  isDraining(): boolean;
  /** Begin the drain (idempotent); the daemon exits once it is done. */
  shutdown(timeoutMs: number): void;
}

/** Register `GET /server` and `POST /server/shutdown`. */
export function registerServerRoutes(app: HttpApp, options: ServerRouteOptions): void {
  registerResource(app, "/server", {
    GET: {
      schema: { response: { 200: ServerInfoSchema } },
      config: {
        role: "viewer",
        boundTokens: "unscoped",
        doc: { summary: "The daemon: instance, protocol, state, capabilities, version" },
      },
      handler: async (): Promise<ServerInfo> => ({
        instance_id: options.instanceId,
        protocol: protocolVersion,
        state: options.isDraining() ? "draining" : "ready",
        capabilities,
        version: options.version,
        shell: options.shell,
      }),
    },
  });
  registerResource(app, "/server/shutdown", {
    POST: {
      schema: { body: ShutdownBodySchema, response: { 202: ShutdownAnswerSchema } },
      config: {
        role: "admin",
        doc: {
          summary: "Drain and stop the daemon",
          description: "Running turns get `timeout_ms`; a wrong `instance_id` is 409 instance_changed.",
        },
      },
      handler: async (request, reply) => {
        const body = request.body as ShutdownBody;
        if (body.instance_id !== options.instanceId) {
          throw problem(
            "instance_changed",
            `this daemon is instance ${options.instanceId}, not ${body.instance_id}`,
          );
        }
        options.shutdown(body.timeout_ms ?? 5_000);
        const answer: ShutdownAnswer = { instance_id: options.instanceId, state: "draining" };
        return reply.code(202).send(answer);
      },
    },
  });
}
