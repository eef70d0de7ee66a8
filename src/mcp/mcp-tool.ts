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
import { cachedEntry } from "../model/cached-entry.js";
import { toolArgumentsObject } from "../model/tool-arguments.js";
import { type ToolDefinition, ToolError, type ToolMeta } from "../model/tools.js";
import type { McpServerInstance } from "./server-instance.js";
import type { McpToolInfo } from "./server-tools.js";

/**
 * The meta of each listed tool: one object per listing's entry (a new listing brings new
 * entries), so what is derived from a meta (its request JSON, its token estimate) is kept
 * from turn to turn.
 */
const metas = new WeakMap<McpToolInfo, ToolMeta>();

/** The definition of `tool`, called on `instance` (which must outlive the turn's Worker). */
export function mcpToolDefinition(instance: McpServerInstance, tool: McpToolInfo): ToolDefinition {
  const meta = cachedEntry(metas, tool, () => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
  return () => ({
    meta,
    tool: {
      // The Worker has already checked that the arguments are a JSON object.
      execute: (inputJson, context) => {
        const args = toolArgumentsObject(inputJson);
        if (args === null)
          throw new ToolError("invalid_argument", `${tool.name}: the arguments are not a JSON object`);
        return instance.callTool(tool.mcpName, args, context.signal);
      },
    },
  });
}
