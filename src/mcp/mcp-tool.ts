/**
 * An MCP server's tool as a `ToolDefinition`, the interface every built-in tool implements.
 *
 * Boundary rule: nothing MCP-specific reaches the Worker. Its tool batch (src/worker/
 * tool-batch.ts) runs these calls exactly as it runs the built-in tools: each call is committed
 * to the log before it starts, passes the interceptor's `beforeToolCall` (where a policy check
 * such as approvals belongs, for built-in and MCP tools alike), and its result is committed
 * before the next step; a call whose result was never logged is answered as "outcome unknown"
 * after a crash and never run again.
 */
import type { JsonObject } from "../model/json.js";
import type { ToolDefinition } from "../model/tools.js";
import type { McpServerInstance } from "./server-instance.js";
import type { McpToolInfo } from "./server-tools.js";

/** The definition of `tool`, called on `instance` (which must outlive the turn's Worker). */
export function mcpToolDefinition(instance: McpServerInstance, tool: McpToolInfo): ToolDefinition {
  return () => ({
    meta: { name: tool.name, description: tool.description, input_schema: tool.inputSchema },
    tool: {
      // The Worker has already checked that the arguments are a JSON object.
      execute: (inputJson, context) =>
        instance.callTool(tool.mcpName, JSON.parse(inputJson) as JsonObject, context.signal),
    },
  });
}
