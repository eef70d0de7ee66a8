/**
 * What `GET /mcp` answers and `skein mcp list|test` shows: the configured MCP servers, each
 * running instance's state, its tools (with the names the model sees) and its last error.
 *
 * Boundary rule: types only, each the static type of its schema (schemas/mcp-status.ts).
 */
export type {
  McpErrorStatus,
  McpInstanceStatus,
  McpServerState,
  McpServerStatus,
  McpStatus,
  McpTestBody,
  McpTestReport,
} from "./schemas/mcp-status.js";
