/**
 * MCP servers: `GET /mcp` (every configured server, its instances' state, tools and last error)
 * and `POST /mcp/{name}/test` (start the server now, in the daemon's environment, and report).
 *
 * Boundary rule: validation and translation only; the McpManager does the work. A server that
 * fails is reported in the answer (200), never as an error of the route.
 */
import { Type } from "typebox";
import { McpStatusSchema, McpTestBodySchema, McpTestReportSchema } from "../../api/schemas/mcp-status.js";
import type { McpManager } from "../../mcp/mcp-manager.js";
import { McpServerUnknownError } from "../../mcp/mcp-manager.js";
import type { HttpApp } from "../http/create-http-app.js";
import { problem } from "../http/problem.js";
import { registerResource } from "../http/resource.js";
import { checkWorkspace } from "./workspace-check.js";

export interface McpRouteServices {
  mcp: McpManager;
  /** Why the tools would refuse this workspace, or null (the same check as session creation). */
  workspaceProblem(workspace: string): string | null;
}

/** Register the MCP routes. */
export function registerMcpRoutes(app: HttpApp, services: McpRouteServices): void {
  registerResource(app, "/mcp", {
    GET: {
      schema: { response: { 200: McpStatusSchema } },
      config: {
        role: "viewer",
        doc: { summary: "The configured MCP servers, their instances, tools and last errors" },
      },
      handler: async () => services.mcp.status(),
    },
  });
  registerResource(app, "/mcp/:name/test", {
    POST: {
      schema: {
        params: Type.Object({ name: Type.String() }),
        body: McpTestBodySchema,
        response: { 200: McpTestReportSchema },
      },
      config: {
        role: "admin",
        startsWork: true,
        doc: { summary: "Start an MCP server now and report whether it came up" },
      },
      handler: async (request) => {
        const { name } = request.params as { name: string };
        const { workspace } = request.body as { workspace?: string };
        if (workspace !== undefined) checkWorkspace(workspace, services.workspaceProblem);
        try {
          return await services.mcp.test(name, workspace ?? null);
        } catch (error) {
          if (error instanceof McpServerUnknownError) throw problem("resource_not_found", error.message);
          throw error;
        }
      },
    },
  });
}
