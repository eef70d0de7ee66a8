/**
 * The tools of one MCP server as the model sees them: listed page by page (at most
 * `maxListedTools`), each named `<server>__<tool>` portably, with a description and an input
 * schema that describes an object.
 *
 * Boundary rule: reads `tools/list` only; the instance decides when to list.
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Tool as McpTool } from "@modelcontextprotocol/sdk/types.js";
import type { JsonObject } from "../model/json.js";
import { toolInputSchema } from "./input-schema.js";
import { mcpToolName } from "./tool-name.js";

/** One tool of a server, with the name the model sees. */
export interface McpToolInfo {
  /** `<server>__<tool>`, portable across providers. */
  name: string;
  /** The tool's name on the server. */
  mcpName: string;
  description: string;
  inputSchema: JsonObject;
}

/** The most tools one server contributes; later pages are not read. */
const maxListedTools = 1000;

/** The tools `client` lists for `server`; of two tools whose portable names collide, the first. */
export async function listServerTools(
  client: Client,
  server: string,
  options: { timeout: number; signal?: AbortSignal },
): Promise<McpToolInfo[]> {
  const listed: McpTool[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, options);
    listed.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor !== undefined && listed.length < maxListedTools);
  const byName = new Map<string, McpToolInfo>();
  for (const tool of listed.slice(0, maxListedTools)) {
    const name = mcpToolName(server, tool.name);
    if (byName.has(name)) continue;
    byName.set(name, {
      name,
      mcpName: tool.name,
      description: tool.description ?? tool.title ?? `Tool "${tool.name}" of the MCP server "${server}".`,
      inputSchema: toolInputSchema(tool.inputSchema),
    });
  }
  return [...byName.values()];
}
